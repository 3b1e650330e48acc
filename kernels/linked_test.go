package kernels

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// LinkedImage links once per (PTX, identity) and folder: a later call
// with the same inputs reads the image back, any changed input links
// anew, a failed link or an image use refuses is not kept, a kept image
// use refuses is linked again and replaced, and "-" keeps nothing.
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
	boom, bad := errors.New("link failed"), errors.New("load failed")
	var used []string
	// use refuses the images named in refuse.
	use := func(refuse ...string) func([]byte) error {
		return func(b []byte) error {
			used = append(used, string(b))
			for _, r := range refuse {
				if string(b) == r {
					return bad
				}
			}
			return nil
		}
	}
	sm90 := []string{"sm 9.0", "driver 13000"}
	for _, c := range []struct {
		name      string
		p         Program
		ptx       string
		id        []string
		link      func() ([]byte, error)
		use       func([]byte) error
		wantUsed  []string
		wantErr   error
		wantLinks int
	}{
		{"first link", p, "ptx A", sm90, link("image A", nil), use(), []string{"image A"}, nil, 1},
		{"read back", p, "ptx A", sm90, link("other", nil), use(), []string{"image A"}, nil, 0},
		{"other PTX", p, "ptx B", sm90, link("image B", nil), use(), []string{"image B"}, nil, 1},
		{"other driver", p, "ptx A", []string{"sm 9.0", "driver 13010"}, link("image A2", nil), use(), []string{"image A2"}, nil, 1},
		{"identity parts do not run together", p, "ptx A", []string{"sm 9.0driver 13000"}, link("image A3", nil), use(), []string{"image A3"}, nil, 1},
		{"failed link", p, "ptx C", nil, link("", boom), use(), nil, boom, 1},
		{"failure not kept", p, "ptx C", nil, link("image C", nil), use(), []string{"image C"}, nil, 1},
		{"refused image", p, "ptx D", nil, link("image D", nil), use("image D"), []string{"image D"}, bad, 1},
		{"refusal not kept", p, "ptx D", nil, link("image D2", nil), use(), []string{"image D2"}, nil, 1},
		{"kept image refused: linked again", p, "ptx A", sm90, link("image A4", nil), use("image A"), []string{"image A", "image A4"}, nil, 1},
		{"and replaced", p, "ptx A", sm90, link("other", nil), use(), []string{"image A4"}, nil, 0},
		{"no cache", Program{Name: "p", cache: "-"}, "ptx A", sm90, link("fresh", nil), use(), []string{"fresh"}, nil, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			links, used = 0, nil
			err := c.p.LinkedImage(c.ptx, c.id, c.link, c.use)
			if !errors.Is(err, c.wantErr) || !slices.Equal(used, c.wantUsed) || links != c.wantLinks {
				t.Fatalf("LinkedImage: %v, used %q after %d links; want %v, %q after %d", err, used, links, c.wantErr, c.wantUsed, c.wantLinks)
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
	if len(files) != 6 {
		t.Errorf("cache holds %d images, want 6", len(files))
	}
}
