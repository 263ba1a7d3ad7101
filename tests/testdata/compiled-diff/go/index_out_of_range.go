// A runtime panic: an index past the slice's end (exit 2).
package main

import (
	"fmt"
	"os"
)

func main() {
	s := make([]int, len(os.Args))
	fmt.Println(s[len(s)+2])
}
