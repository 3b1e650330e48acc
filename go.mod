module github.com/symchan/symchan

go 1.23.0
