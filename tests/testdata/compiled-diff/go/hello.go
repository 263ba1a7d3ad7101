// Prints and exits 0.
package main

import "fmt"

func main() { fmt.Println("hello") }
