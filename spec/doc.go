package spec
