//! Failing imports: an error diagnostic, promptly, and no state.

use crate::cycle::{args_with, import_block, Capability, ImportStep};
use crate::harness::{diagnostic_text, Workdir};

impl Workdir {
    /// Asserts that importing `id` into `address` (a resource this
    /// directory declares) fails with an error whose summary or detail holds
    /// `needle`, promptly (under a minute), and writes no state. From
    /// Terraform 1.5 the error is read from `plan -json` with an `import {}`
    /// block; `terraform import` has no machine-readable output, so on older
    /// versions its text is searched.
    pub fn expect_import_failure(&self, vars: &[&str], address: &str, id: &str, needle: &str) {
        let started = std::time::Instant::now();
        let run = self.run(&args_with(&["import"], &args_with(vars, &[address, id])));
        assert!(started.elapsed() < std::time::Duration::from_secs(60));
        assert_ne!(
            run.code,
            0,
            "importing {id:?} succeeded on {}:\n{}",
            self.tf.version_string(),
            run.combined()
        );
        let (kind, _) = address.split_once('.').expect("type.name address");
        let state = std::fs::read_to_string(self.path().join("terraform.tfstate"));
        assert!(
            !state.is_ok_and(|state| state.contains(kind)),
            "a failed import wrote state"
        );
        if !self.tf.supports(Capability::ImportBlock) {
            assert!(
                run.stderr.contains(needle),
                "importing {id:?} failed without {needle:?} on {}:\n{}",
                self.tf.version_string(),
                run.stderr
            );
            return;
        }
        let step = ImportStep {
            address: address.to_owned(),
            id: id.to_owned(),
        };
        self.write_file("import.tf", &import_block(&step));
        // Terraform 1.11 gives the importer's diagnostics no source range.
        let planned = self.run(&args_with(&["plan", "-json"], vars));
        let diagnostics = planned.diagnostics();
        assert!(
            planned.code != 0
                && diagnostics
                    .iter()
                    .any(|d| d["severity"] == "error" && diagnostic_text(d).contains(needle)),
            "importing {id:?} by an import block gave no error {needle:?} on {}:\n{diagnostics:#?}",
            self.tf.version_string()
        );
        std::fs::remove_file(self.path().join("import.tf")).expect("remove import.tf");
    }
}
