module github.com/symchan/symchan

go 1.26.0
