// Generics (Go 1.18): exits 0 only if the sums are right.
package main

import "os"

type Number interface{ ~int | ~float64 }

func Sum[T Number](xs []T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}

func main() {
	if Sum([]int{1, 2, 3}) != 6 || Sum([]float64{0.5, 0.25}) != 0.75 {
		os.Exit(1)
	}
}
