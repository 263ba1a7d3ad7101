// Does not compile: a declared and unused variable.
package main

func main() {
	x := 1
}
