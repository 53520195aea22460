"""Oracle driver: asks real clients whether they would bypass the proxy.

Reads JSON lines {"no_proxy": ..., "url": ...} on stdin and prints one line
per case: "direct" or "proxy". The client is the first argument:
  urllib    CPython urllib.request.proxy_bypass (what ProxyHandler calls)
  requests  requests.utils.should_bypass_proxies
  curl      the curl binary, classified from its verbose output
  wget      the wget binary, classified from its debug output
curl and wget run inside a network namespace of their own (see
tests/oracle/mod.rs): the proxy is a closed port on 127.0.0.1, curl's direct
connections are redirected to another closed loopback port, and nothing can
leave the namespace.
"""

import json
import os
import subprocess
import sys
import urllib.request

PROXY_PORT = 9  # discard: closed on loopback
DIRECT_PORT = 7  # echo: closed on loopback
PROXY = "http://127.0.0.1:%d" % PROXY_PORT


def env_for(no_proxy):
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update(no_proxy=no_proxy, http_proxy=PROXY, https_proxy=PROXY, HTTPS_PROXY=PROXY)
    return env


def urllib_decision(no_proxy, url):
    os.environ.clear()
    os.environ.update(env_for(no_proxy))
    host = urllib.request.Request(url).host
    return bool(urllib.request.proxy_bypass(host))


def requests_decision(no_proxy, url):
    import requests.utils

    os.environ.clear()
    os.environ.update(env_for(no_proxy))
    return bool(requests.utils.should_bypass_proxies(url, no_proxy=no_proxy))


def curl_decision(no_proxy, url):
    out = subprocess.run(
        ["curl", "-sv", "--max-time", "3", "-o", "/dev/null",
         "--connect-to", "::127.0.0.1:%d" % DIRECT_PORT, url],
        env=env_for(no_proxy), capture_output=True, text=True).stderr
    if "127.0.0.1:%d" % PROXY_PORT in out or "port %d" % PROXY_PORT in out:
        return False
    if "127.0.0.1:%d" % DIRECT_PORT in out or "port %d" % DIRECT_PORT in out:
        return True
    raise SystemExit("curl: cannot classify %r %r:\n%s" % (no_proxy, url, out))


def wget_decision(no_proxy, url):
    out = subprocess.run(
        ["wget", "-d", "--tries=1", "--timeout=2", "-O", "/dev/null", url],
        env=env_for(no_proxy), capture_output=True, text=True).stderr
    if "127.0.0.1:%d" % PROXY_PORT in out:
        return False
    if "Resolving" in out or "Connecting to" in out:
        return True
    raise SystemExit("wget: cannot classify %r %r:\n%s" % (no_proxy, url, out))


DECIDERS = {
    "urllib": urllib_decision,
    "requests": requests_decision,
    "curl": curl_decision,
    "wget": wget_decision,
}


def main():
    decide = DECIDERS[sys.argv[1]]
    saved = dict(os.environ)
    for line in sys.stdin:
        case = json.loads(line)
        direct = decide(case["no_proxy"], case["url"])
        os.environ.clear()
        os.environ.update(saved)
        print("direct" if direct else "proxy", flush=True)


main()
