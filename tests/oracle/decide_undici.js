// Oracle driver for Node fetch through undici's EnvHttpProxyAgent: JSON lines
// {no_proxy, url} on stdin, "direct", "proxy" or "refused" (fetch rejects
// the URL) per line on stdout. undici's own fetch runs with the agent as its
// dispatcher; the agent's three inner dispatchers (direct, HTTP proxy, HTTPS
// proxy) are replaced by recorders that fail the request before any socket is
// opened, so the agent's real choice is observed and nothing is sent.
const { fetch, EnvHttpProxyAgent } = require('undici');
const symbols = require('undici/lib/core/symbols');
const readline = require('readline');

for (const key of Object.keys(process.env)) {
  if (key.toLowerCase().endsWith('_proxy')) delete process.env[key];
}
process.env.http_proxy = 'http://127.0.0.1:9';
process.env.https_proxy = 'http://127.0.0.1:9';
process.env.no_proxy = '';

const agent = new EnvHttpProxyAgent();
let chosen = null;
const recorder = (name) => ({
  dispatch () {
    chosen = name;
    throw new Error('oracle: no connection');
  },
  close: async () => {},
  destroy: async () => {}
});
agent[symbols.kNoProxyAgent] = recorder('direct');
agent[symbols.kHttpProxyAgent] = recorder('proxy');
agent[symbols.kHttpsProxyAgent] = recorder('proxy');

async function main () {
  const lines = readline.createInterface({ input: process.stdin });
  for await (const line of lines) {
    const c = JSON.parse(line);
    process.env.no_proxy = c.no_proxy;
    chosen = null;
    try {
      await fetch(c.url, { dispatcher: agent });
    } catch (e) {
      // A URL fetch cannot parse: TypeError("Failed to parse URL ...").
      const unparsable = e instanceof TypeError && /^Failed to parse URL/.test(e.message);
      if (chosen === null && !unparsable) throw e;
    }
    process.stdout.write((chosen ?? 'refused') + '\n');
  }
}

main().catch((e) => { console.error(e); process.exit(1); });
