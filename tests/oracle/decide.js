// Oracle driver for Node's proxy-from-env: JSON lines {no_proxy, url} on
// stdin, "direct" or "proxy" per line on stdout.
const { getProxyForUrl } = require('proxy-from-env');
const readline = require('readline');

for (const key of Object.keys(process.env)) {
  if (key.toLowerCase().endsWith('_proxy')) delete process.env[key];
}
process.env.http_proxy = 'http://127.0.0.1:9';
process.env.https_proxy = 'http://127.0.0.1:9';

const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const c = JSON.parse(line);
  process.env.no_proxy = c.no_proxy;
  process.stdout.write(getProxyForUrl(c.url) === '' ? 'direct\n' : 'proxy\n');
});
