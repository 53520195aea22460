"""Oracle driver for Python httpx: reads JSON lines {"no_proxy": ..., "url": ...}
on stdin and prints per case "direct", "proxy" or "refused".

The decision goes through httpx's own code path for proxies from the
environment, without sending anything: httpx.Client() (trust_env, the default)
turns http_proxy/https_proxy/no_proxy into its mounts when it is constructed
(httpx/_utils.py get_environment_proxies, httpx/_client.py _get_proxy_map);
Client.build_request() parses the URL as send() does, and
Client._transport_for_url() is what send() calls to pick the transport: the
client's own transport is a direct connection, a mounted one is the proxy.
"refused" is a setting httpx.Client() cannot be constructed with (it raises,
e.g. InvalidURL for an IPv6 CIDR entry) or a URL it rejects. No transport is
ever used, so no socket is opened.
"""

import json
import os
import sys

import httpx

PROXY = "http://127.0.0.1:9"  # discard: closed on loopback, never connected to


def main():
    for key in list(os.environ):
        if key.lower().endswith("_proxy"):
            del os.environ[key]
    os.environ.update(http_proxy=PROXY, https_proxy=PROXY)
    clients = {}
    out = []
    for line in sys.stdin:
        case = json.loads(line)
        setting = case["no_proxy"]
        if setting not in clients:
            os.environ["no_proxy"] = setting
            try:
                # verify=False only skips loading CA certificates (speed).
                clients[setting] = httpx.Client(verify=False)
            except Exception:  # the whole setting breaks the client
                clients[setting] = None
        client = clients[setting]
        if client is None:
            out.append("refused")
            continue
        try:
            request = client.build_request("GET", case["url"])
        except Exception:
            out.append("refused")
            continue
        transport = client._transport_for_url(request.url)
        out.append("direct" if transport is client._transport else "proxy")
    print("\n".join(out), flush=True)


main()
