package local

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/docspub/platform/libs/porttest"
	"github.com/docspub/platform/libs/waittest"
)

// startNginx serves html as page.html (and page.html.gz beside it, for
// gzip_static) from an nginx of its own on a free loopback port, with a
// configuration written in a temporary folder, and returns the page's
// URL; it stops nginx when b ends. Without an nginx binary in PATH it
// returns "" and the reason.
func startNginx(b *testing.B, html []byte) (url, skipped string) {
	b.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		return "", "no nginx binary in PATH (apt-get install nginx): the nginx rows are left out"
	}
	dir := b.TempDir()
	www := filepath.Join(dir, "www")
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	_, _ = zw.Write(html)
	_ = zw.Close()
	for _, d := range []string{www, filepath.Join(dir, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	for name, data := range map[string][]byte{"page.html": html, "page.html.gz": gz.Bytes()} {
		if err := os.WriteFile(filepath.Join(www, name), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	port := porttest.Free(b, 1)[0]
	// As root, nginx's workers would run as nobody, who cannot enter the
	// test's temporary folders.
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;"
	}
	tmp := filepath.Join(dir, "tmp")
	conf := fmt.Sprintf(`%s
worker_processes auto;
daemon off;
pid %[2]s/nginx.pid;
error_log %[2]s/error.log error;
events { worker_connections 1024; }
http {
	access_log off;
	sendfile on;
	tcp_nopush on;
	keepalive_requests 1000000;
	types { text/html html; }
	client_body_temp_path %[3]s/body;
	proxy_temp_path %[3]s/proxy;
	fastcgi_temp_path %[3]s/fastcgi;
	uwsgi_temp_path %[3]s/uwsgi;
	scgi_temp_path %[3]s/scgi;
	server {
		listen 127.0.0.1:%[4]d;
		root %[5]s;
		gzip_static on;
		gzip_vary on;
	}
}
`, user, dir, tmp, port, www)
	confPath := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(confPath, []byte(conf), 0o644); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin, "-p", dir, "-c", confPath, "-e", filepath.Join(dir, "error.log"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		b.Fatalf("nginx: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	b.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt) // nginx's fast shutdown (SIGINT)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	waittest.Until(b, "nginx listening on "+addr, 10*time.Second, func() bool {
		select {
		case err := <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			b.Fatalf("nginx exited: %v\n%s%s", err, out.String(), log)
		default:
		}
		c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond)
		if err == nil {
			_ = c.Close()
		}
		return err == nil
	})
	return "http://" + addr + "/page.html", ""
}
