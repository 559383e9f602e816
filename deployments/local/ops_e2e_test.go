package local

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/embedded"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/ops"
	"github.com/docspub/platform/services/content"
	"github.com/docspub/platform/services/identity"
	"github.com/docspub/platform/services/insights"
	"github.com/docspub/platform/services/integrations"
	"github.com/docspub/platform/services/sites"
	"github.com/sethvargo/go-envconfig"
)

var everyService = []ops.Service{content.Ops, identity.Ops, sites.Ops, insights.Ops, integrations.Ops}

// A stopped platform's every database and its blob store, backed up with
// each service's command, restore into a new data directory; the check
// finds every document and blob as backed up, and the platform started on
// the restored data answers as before: the organization's spaces, a
// space, its files byte for byte; it takes writes again.
func TestBackupRestoreEveryService(t *testing.T) {
	inProcessOnly(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	dirA, dirB, backups := t.TempDir(), t.TempDir(), t.TempDir()
	before, files := servedThenStopped(t, ctx, dirA)

	runAll := func(dataDir, cmd string) {
		m, err := embedded.StartMongo(filepath.Join(dataDir, "mongo"), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		env := envconfig.MapLookuper(map[string]string{"MONGO_URI": m.URI, "BLOB_URL": "file://" + filepath.ToSlash(filepath.Join(dataDir, "blobs"))})
		for _, s := range everyService {
			var out bytes.Buffer
			if err := ops.Run(ctx, s, env, []string{cmd, filepath.Join(backups, s.Name)}, &out); err != nil {
				t.Fatalf("%s %s: %v\n%s", s.Name, cmd, err, out.String())
			}
			if cmd == "restore" && !strings.Contains(out.String(), "matches the backup") {
				t.Fatalf("%s restore: %s", s.Name, out.String())
			}
		}
	}
	runAll(dirA, "backup")
	copyDataDir(t, dirA, dirB) // the local runner's secrets and credentials, not its databases
	runAll(dirB, "restore")

	p, err := Start(ctx, Config{Addr: "127.0.0.1:0", DataDir: dirB, LogLevel: "warn", OutboundAllowPrivate: true}, logx.ForTest(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	after, _ := answers(t, p, before.space)
	t.Logf("compared %d answers and %d files; spaces: %.200s", len(before.bodies), len(files), before.bodies["/v1/orgs/"+p.Credentials.DemoOrgID+"/spaces"])
	for path, body := range before.bodies {
		if got := after.bodies[path]; got != body {
			t.Errorf("GET %s after the restore:\n%s\nbefore:\n%s", path, got, body)
		}
	}
	for url, data := range files {
		if got := download(t, p, strings.Replace(url, "{base}", p.URL, 1)); !bytes.Equal(got, data) {
			t.Errorf("file %s after the restore: %d bytes, want %d", url, len(got), len(data))
		}
	}
	a := newBenchAPI(t, p)
	a.space(p.Credentials.DemoOrgID, p.Credentials.DemoAdminToken, "After the restore")
}

// served is what the API answered, with the platform's address as {base}.
type served struct {
	space  string
	bodies map[string]string
}

// servedThenStopped starts a platform in dir, writes a space with files,
// reads what the API answers and stops it.
func servedThenStopped(t *testing.T, ctx context.Context, dir string) (served, map[string][]byte) {
	t.Helper()
	p, err := Start(ctx, Config{Addr: "127.0.0.1:0", DataDir: dir, LogLevel: "warn", OutboundAllowPrivate: true}, logx.ForTest(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	a := newBenchAPI(t, p)
	sp, first := a.space(p.Credentials.DemoOrgID, p.Credentials.DemoAdminToken, "Backed up")
	a.files(sp, first, map[string][]byte{"small.png": randomBytes(1, 300<<10), "large.png": randomBytes(2, 2<<20)})
	before, urls := answers(t, p, sp)
	if len(urls) != 2 {
		t.Fatalf("the space's files: %v", urls)
	}
	files := map[string][]byte{}
	for _, u := range urls {
		files[u] = download(t, p, strings.Replace(u, "{base}", p.URL, 1))
	}
	return before, files
}

// answers reads the organization's spaces, the space and its files, and
// returns their bodies and the files' download URLs.
func answers(t *testing.T, p *Platform, sp string) (served, []string) {
	t.Helper()
	a := newBenchAPI(t, p)
	s := served{space: sp, bodies: map[string]string{}}
	for _, path := range []string{"/v1/orgs/" + p.Credentials.DemoOrgID + "/spaces", "/v1/spaces/" + sp, "/v1/spaces/" + sp + "/content/files"} {
		s.bodies[path] = strings.ReplaceAll(string(a.send("GET", p.URL+path, p.Credentials.DemoAdminToken, false, nil)), p.URL, "{base}")
	}
	var list struct {
		Items []struct {
			DownloadURL string `json:"downloadURL"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(s.bodies["/v1/spaces/"+sp+"/content/files"]), &list); err != nil {
		t.Fatal(err)
	}
	var urls []string
	for _, f := range list.Items {
		urls = append(urls, f.DownloadURL)
	}
	return s, urls
}

func download(t *testing.T, p *Platform, url string) []byte {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+p.Credentials.DemoAdminToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("GET %s: %d %v", url, res.StatusCode, err)
	}
	return b
}

// copyDataDir copies the files of a data directory but its databases and
// blobs.
func copyDataDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() && (rel == "mongo" || rel == "blobs") {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o600)
	})
	if err != nil {
		t.Fatal(err)
	}
}
