package local

import (
	"net"
	"testing"

	"github.com/valyala/fasthttp"
)

// startFastHTTP serves gz, the page's gzip bytes, from memory through
// fasthttp alone (its defaults, no router or middleware): the floor of
// another HTTP server for the coded rows, next to net/http's, to tell
// what the page goal needs of the server (issue 30). It returns the URL.
func startFastHTTP(b *testing.B, gz []byte) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	s := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		ctx.Response.Header.SetContentType("text/html; charset=utf-8")
		ctx.Response.Header.Set("Content-Encoding", "gzip")
		ctx.SetBody(gz)
	}}
	go func() { _ = s.Serve(ln) }()
	b.Cleanup(func() { _ = s.Shutdown() })
	return "http://" + ln.Addr().String()
}
