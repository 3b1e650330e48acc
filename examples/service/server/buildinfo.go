package server

import (
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
)

// Build says what this binary was built from: the main module's version
// ("(devel)" for a build in the repository), the VCS revision and whether
// the tree had changes ("unknown" where the build recorded none), and the
// Go version.
type Build struct {
	Version, Revision, GoVersion string
	Modified                     bool
}

// BuildInfo reads the binary's build (runtime/debug.ReadBuildInfo).
func BuildInfo() Build {
	b := Build{Version: "unknown", Revision: "unknown", GoVersion: "unknown"}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	b.Version, b.GoVersion = info.Main.Version, info.GoVersion
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// buildGauge is symchan_build_info: 1, labelled with the build.
func buildGauge() prometheus.Collector {
	b := BuildInfo()
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "symchan_build_info", Help: "1, labelled with the build of the running binary.",
		ConstLabels: prometheus.Labels{"version": b.Version, "revision": b.Revision, "goversion": b.GoVersion},
	})
	g.Set(1)
	return g
}
