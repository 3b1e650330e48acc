package bench

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	modzip "golang.org/x/mod/zip"
)

// The published modules and the directories they live in. Their versions
// move together: the repository's tag vX.Y.Z, and for a module in a
// subdirectory the tag <dir>/vX.Y.Z (CHANGELOG, docs/design.md).
var published = []struct{ path, dir string }{
	{"github.com/symchan/symchan", ""},
	{"github.com/symchan/symchan/actors/service/promstats", "actors/service/promstats"},
	{"github.com/symchan/symchan/actors/service/otelstats", "actors/service/otelstats"},
	{"github.com/symchan/symchan/actors/protobridge", "actors/protobridge"},
}

// publishedVersion is the version the modules require of each other.
const publishedVersion = "v0.1.0"

// oldestGo is the published modules' go directive: the oldest Go release
// they build with.
const oldestGo = "1.23.0"

// A program outside the repository gets symchan from a module proxy
// alone, no replace: the published modules at HEAD, zipped as their
// v0.1.0 (the first tag) into a file-based proxy put in front of the
// usual one, satisfy a consumer that imports all four and one that
// imports only the core: their host-only builds work, no module in their
// graphs asks for a newer Go than the published modules' directive, and
// the core's consumer has no module but itself and the core (the lean
// graph). It reports each graph's size (go list -m all).
func TestConsumerWithoutReplace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module from a proxy: about a minute the first time")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(repo, ".git")); err != nil {
		t.Skip("not a git checkout: the modules are zipped from HEAD")
	}
	proxy := t.TempDir()
	for _, m := range published {
		v := module.Version{Path: m.path, Version: publishedVersion}
		esc, err := module.EscapePath(m.path)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(proxy, esc, "@v")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		var zip bytes.Buffer
		if err := modzip.CreateFromVCS(&zip, v, repo, "HEAD", m.dir); err != nil {
			t.Fatalf("zipping %s: %v", m.path, err)
		}
		gomod, err := os.ReadFile(filepath.Join(repo, m.dir, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		info, _ := json.Marshal(map[string]any{"Version": publishedVersion, "Time": time.Now().UTC().Format(time.RFC3339)})
		for name, b := range map[string][]byte{"list": []byte(publishedVersion + "\n"), publishedVersion + ".info": info,
			publishedVersion + ".mod": gomod, publishedVersion + ".zip": zip.Bytes()} {
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	upstream, err := exec.Command("go", "env", "GOPROXY").Output()
	if err != nil {
		t.Fatal(err)
	}
	// A module cache of the test's own: one shared with other runs would
	// keep the first v0.1.0 it saw (and the build cache its index of it),
	// whatever HEAD holds now. The machine's cache serves everything else,
	// as a proxy, before the network does.
	cache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod -modcacherw", "GONOSUMDB=github.com/symchan",
		"GOMODCACHE="+t.TempDir(),
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(strings.TrimSpace(string(cache)), "cache", "download"))+","+strings.TrimSpace(string(upstream)))
	for _, c := range consumers {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"go.mod": "module example.com/consumer\n\ngo " + oldestGo + "\n", "main.go": c.main}
			for name, text := range files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			run := func(args ...string) string {
				t.Helper()
				cmd := exec.Command("go", args...)
				cmd.Dir, cmd.Env = dir, env
				out, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
				}
				return string(out)
			}
			run("mod", "tidy")
			if out := run("run", "."); strings.TrimSpace(out) != "42 <nil>" {
				t.Fatalf("the consumer printed %q, want 42 <nil>", out)
			}
			for _, line := range strings.Split(strings.TrimSpace(run("list", "-m", "-f", "{{.Path}} {{.GoVersion}}", "all")), "\n") {
				path, goVersion, _ := strings.Cut(line, " ")
				if goVersion != "" && semver.Compare("v"+goVersion, "v"+oldestGo) > 0 {
					t.Errorf("%s asks for Go %s, newer than the published modules' %s", path, goVersion, oldestGo)
				}
			}
			mods := strings.Split(strings.TrimSpace(run("list", "-m", "all")), "\n")
			t.Logf("%s: %d modules in its graph (go list -m all)", c.name, len(mods))
			if c.maxModules > 0 && len(mods) > c.maxModules {
				t.Errorf("%d modules in the graph, want at most %d:\n%s", len(mods), c.maxModules, strings.Join(mods, "\n"))
			}
		})
	}
}

// consumers are programs outside the repository: one of all four
// published modules, and a host-only one of the core, whose graph is
// itself and the core (maxModules: 0 for no bound).
var consumers = []struct {
	name, main string
	maxModules int
}{
	{"all four modules", `package main

import (
	"context"
	"fmt"

	"github.com/symchan/symchan/actors/protobridge"
	"github.com/symchan/symchan/actors/service"
	"github.com/symchan/symchan/actors/service/otelstats"
	"github.com/symchan/symchan/actors/service/promstats"
	"github.com/symchan/symchan/pgas"
)

var _ = protobridge.Start
var _ = otelstats.Carrier

func main() {
	calls := promstats.NewCalls()
	svc, err := service.Start(context.Background(), pgas.Config{Backend: "host", PEs: 2, HeapSize: 4 << 20},
		func(ctx context.Context, pe *pgas.PE) (service.Actor[int64, int64], error) {
			return service.ActorFunc[int64, int64](func(ctx context.Context, x int64) (int64, error) { return 2 * x, nil }), nil
		}, service.Intercept(calls.Middleware))
	if err != nil {
		panic(err)
	}
	defer svc.Stop(context.Background())
	y, err := svc.Call(context.Background(), 1, 21)
	fmt.Println(y, err)
}
`, 0},
	{"host-only core", `package main

import (
	"context"
	"fmt"

	"github.com/symchan/symchan/actors"
	"github.com/symchan/symchan/pgas"
)

var _ = actors.ErrClosed

func main() {
	var got int64
	err := pgas.Run(context.Background(), pgas.Config{Backend: "host", PEs: 2, HeapSize: 4 << 20}, func(ctx context.Context, pe *pgas.PE) error {
		x, err := pgas.AllocZeroed[int64](ctx, pe, 1)
		if err != nil {
			return err
		}
		if _, err := pgas.AtomicFetchAdd(pe, x, 21, 0); err != nil {
			return err
		}
		if err := pe.Barrier(ctx); err != nil {
			return err
		}
		if pe.ID() == 0 {
			v := make([]int64, 1)
			if err := pgas.Get(pe, v, x, 0); err != nil {
				return err
			}
			got = v[0]
		}
		return nil
	})
	fmt.Println(got, err)
}
`, 2},
}
