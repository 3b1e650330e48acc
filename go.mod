module github.com/symchan/symchan

go 1.26.0

require gorgonia.org/cu v0.9.6

require (
	github.com/davecgh/go-spew v1.1.2-0.20180830191138-d8f796af33cc // indirect
	github.com/pkg/errors v0.9.1 // indirect
	github.com/pmezard/go-difflib v1.0.1-0.20181226105442-5d4384ee4fb2 // indirect
	github.com/stretchr/testify v1.8.4 // indirect
)

require github.com/google/uuid v1.5.0 // indirect
