// os.Exit with a code of its own.
package main

import "os"

func main() { os.Exit(3) }
