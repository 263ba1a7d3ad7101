// A write to a nil map panics (exit 2).
package main

func main() {
	var m map[string]int
	m["x"] = 1
}
