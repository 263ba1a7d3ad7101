// 100 goroutines send over a channel; exits 0 only if the total is right.
package main

import (
	"os"
	"sync"
)

func main() {
	ch := make(chan int, 100)
	var wg sync.WaitGroup
	for i := 1; i <= 100; i++ {
		wg.Add(1)
		go func(n int) { defer wg.Done(); ch <- n }(i)
	}
	wg.Wait()
	close(ch)
	total := 0
	for n := range ch {
		total += n
	}
	if total != 5050 {
		os.Exit(1)
	}
}
