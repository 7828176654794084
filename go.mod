module github.com/gpuwcet/gpuwcet

go 1.24

require (
	github.com/BurntSushi/toml v1.6.0
	github.com/emicklei/dot v1.10.0
	github.com/google/go-cmp v0.7.0
	github.com/urfave/cli/v2 v2.27.7
)

require (
	github.com/cpuguy83/go-md2man/v2 v2.0.7 // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/xrash/smetrics v0.0.0-20240521201337-686a1a2994c1 // indirect
)
