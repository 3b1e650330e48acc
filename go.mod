module github.com/symchan/symchan

go 1.26.0

require gorgonia.org/cu v0.9.6

require (
	github.com/pkg/errors v0.9.1 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
)

require github.com/google/uuid v1.6.0 // indirect
