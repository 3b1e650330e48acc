#!/usr/bin/env bash
# Prints the tables of the worlds runs (issue 31; bench/results/HISTORY.md,
# "Fourteenth session") from their raw file: medians of PE 0's lines per
# call, step and benchmark.
#
#   scripts/worlds-table.sh bench/results/2026-11-25-nvidia-h100-x1-worlds-bench.txt
set -euo pipefail
awk '
function median(list,   n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
/^#/ || NF < 4 { next }
{
	call = $1; step = $2
	if ($3 == "[PE") { if ($4 != "0]") next; name = $5; ns = $7 } else { name = $3; ns = $5 }
	sub(/-16$/, "", name); sub(/^Benchmark/, "", name)
	if (name ~ /ActorPingPong/) { for (i = 1; i <= NF; i++) if ($(i+1) == "us/half-RT") { ns = $i * 1000; break } }
	mode = step ~ /remote1/ ? "forced" : step ~ /remote0/ ? "mapped" : step ~ /old/ ? "old" : "new"
	key = call SUBSEP name SUBSEP mode
	v[key] = v[key] " " ns; seen[name] = 1; calls[call] = 1
}
END {
	nc = 0
	for (c in calls) cl[++nc] = c
	for (i = 2; i <= nc; i++) for (j = i; j > 1 && cl[j-1] > cl[j]; j--) { t = cl[j]; cl[j] = cl[j-1]; cl[j-1] = t }
	n = 0
	for (b in seen) names[++n] = b
	for (i = 2; i <= n; i++) for (j = i; j > 1 && names[j-1] > names[j]; j--) { t = names[j]; names[j] = names[j-1]; names[j-1] = t }
	for (k in v) { split(k, p, SUBSEP); if (p[2] !~ /ActorPingPong/) used[p[1]] = 1 }
	hdr = "| benchmark (µs, median of PE 0) |"; sep = "| --- |"
	for (m = 0; m < 2; m++) for (c = 1; c <= nc; c++) if (cl[c] in used) { hdr = hdr " " (m ? "forced " : "mapped ") cl[c] " |"; sep = sep " ---: |" }
	print hdr " forced ÷ mapped, last call |"; print sep " ---: |"
	for (i = 1; i <= n; i++) {
		b = names[i]; if (b ~ /ActorPingPong/) continue
		row = "| `" b "`"; last = ""
		for (m = 0; m < 2; m++) for (c = 1; c <= nc; c++) {
			if (!(cl[c] in used)) continue
			k = cl[c] SUBSEP b SUBSEP (m ? "forced" : "mapped")
			row = row " | " (k in v ? sprintf("%.1f", median(v[k]) / 1000) : "—")
			if (k in v) last = cl[c]
		}
		fb = last SUBSEP b SUBSEP "forced"; mb = last SUBSEP b SUBSEP "mapped"
		row = row " | " ((fb in v) && (mb in v) ? sprintf("%.2f×", median(v[fb]) / median(v[mb])) : "—") " |"
		print row
	}
	print ""
	print "| kernel-actor ping-pong (µs per half, median of the runs) | call | 82e923a (old) | this change (new) | new ÷ old |"
	print "| --- | --- | ---: | ---: | ---: |"
	for (i = 1; i <= n; i++) {
		b = names[i]; if (b !~ /ActorPingPong/) continue
		for (c = 1; c <= nc; c++) {
			ko = cl[c] SUBSEP b SUBSEP "old"; kn = cl[c] SUBSEP b SUBSEP "new"
			if (!(kn in v)) continue
			printf "| `%s` | %s | %s | %.3f | %s |\n", b, cl[c], (ko in v ? sprintf("%.3f", median(v[ko]) / 1000) : "—"),
				median(v[kn]) / 1000, (ko in v ? sprintf("%.2f×", median(v[kn]) / median(v[ko])) : "—")
		}
	}
}' "$@"
