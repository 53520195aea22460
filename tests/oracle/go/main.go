// Oracle driver for Go's net/http ProxyFromEnvironment. Go reads the proxy
// environment once per process, so the NO_PROXY value comes from the
// environment and the URLs, one per line, from stdin; prints "direct",
// "proxy" or "refused" (url.Parse rejects the URL) per URL.
package main

import (
	"bufio"
	"fmt"
	"net/http"
	"net/url"
	"os"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		u, err := url.Parse(in.Text())
		if err != nil {
			fmt.Println("refused")
			continue
		}
		proxy, err := http.ProxyFromEnvironment(&http.Request{URL: u})
		switch {
		case err != nil:
			fmt.Println("error", err)
		case proxy == nil:
			fmt.Println("direct")
		default:
			fmt.Println("proxy")
		}
	}
}
