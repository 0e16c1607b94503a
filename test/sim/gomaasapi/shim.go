// -shim-connect: see the flow past connect against a MAAS that lacks version/ or whoami.

package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	neturl "net/url"
	"strings"
)

// connectShim proxies to the MAAS at base and stands in for version/ and users/?op=whoami where the
// MAAS answers 404, so the steps after connect can be seen before the MAAS has those two.
func connectShim(base string) (string, error) {
	target, err := neturl.Parse(base)
	if err != nil {
		return "", err
	}
	proxy := httputil.NewSingleHostReverseProxy(&neturl.URL{Scheme: target.Scheme, Host: target.Host})
	proxy.ModifyResponse = func(res *http.Response) error {
		if res.StatusCode != http.StatusNotFound {
			return nil
		}
		var body string
		switch {
		case strings.HasSuffix(res.Request.URL.Path, "/api/2.0/version/"):
			body = `{"capabilities":["networks-management","static-ipaddresses","devices-management","storage-deployment-ubuntu","network-deployment-ubuntu"],"version":"2.0.0","subversion":"shim"}`
		case strings.HasSuffix(res.Request.URL.Path, "/api/2.0/users/") && res.Request.URL.Query().Get("op") == "whoami":
			body = `{"username":"admin","email":"admin@example.com","is_superuser":true}`
		default:
			return nil
		}
		res.StatusCode = http.StatusOK
		res.Status = "200 OK"
		res.Header.Set("Content-Type", "application/json")
		res.Header.Del("Content-Length")
		res.ContentLength = int64(len(body))
		res.Body = io.NopCloser(bytes.NewBufferString(body))
		return nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	go func() { _ = http.Serve(ln, proxy) }()
	return "http://" + ln.Addr().String() + target.Path, nil
}
