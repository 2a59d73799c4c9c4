module stacktrace/testdata/go

go 1.26
