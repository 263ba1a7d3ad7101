// errors.Join came with Go 1.20: under Go 1.19 this does not compile.
package main

import (
	"errors"
	"fmt"
)

func main() { fmt.Println(errors.Join(errors.New("a"), errors.New("b"))) }
