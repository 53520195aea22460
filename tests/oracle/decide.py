"""Oracle driver: asks real clients whether they would bypass the proxy.

Reads JSON lines {"no_proxy": ..., "url": ...} on stdin and prints one line
per case: "direct" or "proxy". The client is the first argument:
  urllib    CPython urllib.request.proxy_bypass (what ProxyHandler calls)
  requests  requests.utils.should_bypass_proxies
  curl      libcurl (the library the curl binary runs), through ctypes: it
            reads no_proxy from the environment as the binary does; direct
            connections are redirected to 127.0.0.1:7 (CURLOPT_CONNECT_TO) and
            the socket callback records the port and refuses to open any
            socket, so nothing is sent anywhere
  curl-cli  the curl binary, classified from its verbose output (slower)
  wget      the wget binary, classified from its debug output; consecutive
            cases with the same setting run in one wget process (-i); a URL
            wget rejects ("Invalid URL") is answered "refused"
curl and wget run inside a network namespace of their own (see
tests/oracle/mod.rs): the proxy is a closed port on 127.0.0.1, and nothing can
leave the namespace.
"""

import ctypes
import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.request

PROXY_PORT = 9  # discard: closed on loopback
DIRECT_PORT = 7  # echo: closed on loopback
PROXY = "http://127.0.0.1:%d" % PROXY_PORT


BASE_ENV = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}


def env_for(no_proxy):
    env = dict(BASE_ENV)
    env.update(no_proxy=no_proxy, http_proxy=PROXY, https_proxy=PROXY, HTTPS_PROXY=PROXY)
    return env


def use_setting(no_proxy):
    """In-process clients read the environment on every decision: only
    no_proxy changes (main() reduced the environment to the proxy variables)."""
    os.environ["no_proxy"] = no_proxy


def urllib_decision(no_proxy, url):
    use_setting(no_proxy)
    host = urllib.request.Request(url).host
    return bool(urllib.request.proxy_bypass(host))


def requests_decision(no_proxy, url):
    import requests.utils

    use_setting(no_proxy)
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


class CurlSockaddr(ctypes.Structure):
    _fields_ = [("family", ctypes.c_int), ("socktype", ctypes.c_int),
                ("protocol", ctypes.c_int), ("addrlen", ctypes.c_uint),
                ("addr", ctypes.c_ubyte * 128)]


OPENSOCKET = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int,
                              ctypes.POINTER(CurlSockaddr))
CURLOPT_URL = 10002
CURLOPT_CONNECT_TO = 10243
CURLOPT_OPENSOCKETFUNCTION = 20163
CURLOPT_NOSIGNAL = 99
CURLE_URL_MALFORMAT = 3
libcurl = None


def libcurl_decision(no_proxy, url):
    global libcurl
    if libcurl is None:
        libcurl = ctypes.CDLL("libcurl.so.4")
        libcurl.curl_global_init(3)
        libcurl.curl_easy_init.restype = ctypes.c_void_p
        libcurl.curl_slist_append.restype = ctypes.c_void_p
        libcurl.curl_slist_append.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    use_setting(no_proxy)
    ports = []

    def opensocket(_client, _purpose, address):
        a = address.contents
        ports.append(a.addr[2] * 256 + a.addr[3])
        return -1  # CURL_SOCKET_BAD: no socket is ever opened

    callback = OPENSOCKET(opensocket)
    handle = ctypes.c_void_p(libcurl.curl_easy_init())
    connect_to = libcurl.curl_slist_append(None, ("::127.0.0.1:%d" % DIRECT_PORT).encode())
    setopt = libcurl.curl_easy_setopt
    setopt(handle, CURLOPT_URL, ctypes.c_char_p(url.encode()))
    setopt(handle, CURLOPT_CONNECT_TO, ctypes.c_void_p(connect_to))
    setopt(handle, CURLOPT_OPENSOCKETFUNCTION, callback)
    setopt(handle, CURLOPT_NOSIGNAL, ctypes.c_long(1))
    code = libcurl.curl_easy_perform(handle)
    libcurl.curl_easy_cleanup(handle)
    libcurl.curl_slist_free_all(ctypes.c_void_p(connect_to))
    if code == CURLE_URL_MALFORMAT:
        return None
    if ports == [PROXY_PORT]:
        return False
    if ports == [DIRECT_PORT]:
        return True
    raise SystemExit("libcurl: cannot classify %r %r: code %d ports %r" % (no_proxy, url, code, ports))


def wget_batch(no_proxy, urls):
    """One wget process for many URLs with one setting (-i)."""
    with tempfile.NamedTemporaryFile("w", suffix=".urls") as listing:
        listing.write("".join(u + "\n" for u in urls))
        listing.flush()
        out = subprocess.run(
            ["wget", "-d", "--tries=1", "--timeout=2", "-O", "/dev/null", "-i", listing.name],
            env=env_for(no_proxy), capture_output=True, text=True, errors="replace").stderr
    # URLs wget rejects get no block of their own, only this line.
    invalid = set(re.findall(r": Invalid URL (\S+): ", out))
    blocks = []
    for line in out.splitlines():
        if line.startswith("--") and "--  " in line:
            blocks.append([])
        elif blocks:
            blocks[-1].append(line)
    valid = [u for u in urls if u not in invalid]
    if len(blocks) != len(valid):
        raise SystemExit("wget: %d answers for %d urls %r:\n%s" % (len(blocks), len(valid), no_proxy, out))
    blocks.reverse()
    decisions = []
    for url in urls:
        if url in invalid:
            decisions.append(None)
            continue
        text = "\n".join(blocks.pop())
        if "127.0.0.1:%d" % PROXY_PORT in text:
            decisions.append(False)
        elif "Resolving" in text or "Connecting to" in text:
            decisions.append(True)
        else:
            raise SystemExit("wget: cannot classify %r %r:\n%s" % (no_proxy, url, text))
    return decisions


DECIDERS = {
    "urllib": urllib_decision,
    "requests": requests_decision,
    "curl": libcurl_decision,
    "curl-cli": curl_decision,
}


def answer(direct):
    return {True: "direct", False: "proxy", None: "refused"}[direct]


def main():
    client = sys.argv[1]
    saved = dict(os.environ)
    cases = [json.loads(line) for line in sys.stdin]
    if client == "wget":
        i = 0
        while i < len(cases):
            j = i
            while j < len(cases) and cases[j]["no_proxy"] == cases[i]["no_proxy"]:
                j += 1
            for direct in wget_batch(cases[i]["no_proxy"], [c["url"] for c in cases[i:j]]):
                print(answer(direct), flush=True)
            i = j
        return
    decide = DECIDERS[client]
    os.environ.clear()
    os.environ.update({k: v for k, v in saved.items() if k in ("PATH", "HOME", "LANG")})
    os.environ.update(no_proxy="", http_proxy=PROXY, https_proxy=PROXY, HTTPS_PROXY=PROXY)
    out = []
    for case in cases:
        out.append(answer(decide(case["no_proxy"], case["url"])))
    os.environ.clear()
    os.environ.update(saved)
    print("\n".join(out), flush=True)


main()
