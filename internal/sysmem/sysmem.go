// Package sysmem answers how much memory the machine has and writes byte
// counts for messages, for the size checks of pgas, its host backend,
// actors and the examples.
package sysmem

import (
	"fmt"
	"math"
	"strconv"
)

// Format writes a byte count for messages: "512 B", "1.5 GiB".
func Format(n int64) string {
	const units = "KMGTPE"
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	v, u := float64(n)/1024, 0
	for v >= 1024 && u < len(units)-1 {
		v, u = v/1024, u+1
	}
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) + " " + units[u:u+1] + "iB"
}
