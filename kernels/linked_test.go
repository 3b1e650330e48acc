package kernels

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// LinkedImage links once per (PTX, identity) and folder: a later call
// with the same inputs reads the image back, any changed input links
// anew, a failed link is not kept, and "-" keeps nothing.
func TestLinkedImage(t *testing.T) {
	dir := t.TempDir()
	p := Program{Name: "p", cache: dir}
	links := 0
	link := func(image string, err error) func() ([]byte, error) {
		return func() ([]byte, error) {
			links++
			if err != nil {
				return nil, err
			}
			return []byte(image), nil
		}
	}
	boom := errors.New("link failed")
	for _, c := range []struct {
		name      string
		p         Program
		ptx       string
		id        []string
		link      func() ([]byte, error)
		want      string
		wantErr   error
		wantLinks int
	}{
		{"first link", p, "ptx A", []string{"sm 9.0", "driver 13000"}, link("image A", nil), "image A", nil, 1},
		{"read back", p, "ptx A", []string{"sm 9.0", "driver 13000"}, link("other", nil), "image A", nil, 0},
		{"other PTX", p, "ptx B", []string{"sm 9.0", "driver 13000"}, link("image B", nil), "image B", nil, 1},
		{"other driver", p, "ptx A", []string{"sm 9.0", "driver 13010"}, link("image A2", nil), "image A2", nil, 1},
		{"identity parts do not run together", p, "ptx A", []string{"sm 9.0driver 13000"}, link("image A3", nil), "image A3", nil, 1},
		{"failed link", p, "ptx C", nil, link("", boom), "", boom, 1},
		{"failure not kept", p, "ptx C", nil, link("image C", nil), "image C", nil, 1},
		{"no cache", Program{Name: "p", cache: "-"}, "ptx A", []string{"sm 9.0", "driver 13000"}, link("fresh", nil), "fresh", nil, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			links = 0
			got, err := c.p.LinkedImage(c.ptx, c.id, c.link)
			if !errors.Is(err, c.wantErr) || string(got) != c.want || links != c.wantLinks {
				t.Fatalf("LinkedImage = %q, %v after %d links; want %q, %v after %d", got, err, links, c.want, c.wantErr, c.wantLinks)
			}
		})
	}
	// Entries are whole files, no temporaries left behind.
	files, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if filepath.Ext(f) != ".cubin" {
			t.Errorf("cache holds %s, not an image", f)
		}
		if fi, err := os.Stat(f); err != nil {
			t.Error(err)
		} else if fi.Size() == 0 {
			t.Errorf("cache entry %s is empty", f)
		}
	}
	if len(files) != 5 {
		t.Errorf("cache holds %d images, want 5", len(files))
	}
}
