module github.com/a2a-lambda/a2a-lambda

go 1.26

require github.com/google/uuid v1.6.0 // indirect
