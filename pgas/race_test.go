//go:build race

package pgas

const raceEnabled = true
