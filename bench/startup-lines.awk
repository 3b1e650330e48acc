# startup-lines.awk rewrites the start-up lines of a .gpu/run.sh log (see
# 2026-12-06-nvidia-h100-x1-startup.txt) as benchmark lines for
# cmd/results: wall seconds of the command, and where devicering says
# them, the milliseconds of its compile, its PE 0's load and of the
# process's start until then.
function ms(s) { return s ~ /ms$/ ? s + 0 : (s ~ /s$/ ? s * 1000 : s + 0) }
/^log: startup / {
	backend = $3; build = $4 ~ /^old/ ? "last" : "this"; cache = $5 ~ /^warm/ ? "warm" : "cold"
	wall = $8
	line = sprintf("BenchmarkStartup/backend=%s/cache=%s/build=%s 1 %s s-wall", backend, cache, build, wall)
	if (match($0, /compiled in [0-9.]+m?s, loaded in [0-9.]+m?s \([0-9.]+m?s after/)) {
		split(substr($0, RSTART, RLENGTH), w, /[ ,(]+/)
		line = line sprintf(" %g ms-compile %g ms-load %g ms-ready", ms(w[3]), ms(w[6]), ms(w[7]))
	}
	print line
}
