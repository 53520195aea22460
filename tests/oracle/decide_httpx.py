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
ever used, so no socket is opened. Only the construction of transports
(Client._init_transport, Client._init_proxy_transport: connection pools and
TLS contexts, which take no part in the choice) is replaced by markers, which
makes a client about ten times cheaper to construct.
"""

import json
import os
import sys

import httpx

PROXY = "http://127.0.0.1:9"  # discard: closed on loopback, never connected to


DIRECT = object()
PROXIED = object()
httpx.Client._init_transport = lambda self, **_: DIRECT
httpx.Client._init_proxy_transport = lambda self, proxy, **_: PROXIED


def main():
    # httpx reads the whole environment on every construction: keep only the
    # proxy settings (no other variable takes part in the choice).
    os.environ.clear()
    os.environ.update(http_proxy=PROXY, https_proxy=PROXY)
    clients = {}
    request_urls = {}
    out = []
    for line in sys.stdin:
        case = json.loads(line)
        setting = case["no_proxy"]
        if setting not in clients:
            os.environ["no_proxy"] = setting
            try:
                clients[setting] = httpx.Client()
            except Exception:  # the whole setting breaks the client
                clients[setting] = None
        client = clients[setting]
        if client is None:
            out.append("refused")
            continue
        url = case["url"]
        if url not in request_urls:
            # The request's URL depends on the URL alone (no client has a
            # base_url): built once per URL.
            try:
                request_urls[url] = client.build_request("GET", url).url
            except Exception:
                request_urls[url] = None
        if request_urls[url] is None:
            out.append("refused")
            continue
        transport = client._transport_for_url(request_urls[url])
        out.append({DIRECT: "direct", PROXIED: "proxy"}[transport])
    print("\n".join(out), flush=True)


main()
