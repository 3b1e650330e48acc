//go:build !race

package pgas

const raceEnabled = false
