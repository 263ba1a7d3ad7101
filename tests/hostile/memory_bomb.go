// Attack: allocate and touch memory in Go without end (1 MiB slices, each
// written so the kernel must back it, all kept reachable so the collector
// frees nothing).
// Contained by limits.memory_bytes: the kernel's OOM killer ends the job
// (status oom) and the container's memory peak never passes the limit.
package main

import "fmt"

func main() {
	var blocks [][]byte
	for i := 1; ; i++ {
		b := make([]byte, 1<<20)
		for j := range b {
			b[j] = 'x'
		}
		blocks = append(blocks, b)
		if i%64 == 0 {
			fmt.Println("held", len(blocks), "MiB")
		}
	}
}
