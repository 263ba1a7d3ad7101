// sort.Slice by a key; exits 4 if the order is wrong.
package main

import (
	"os"
	"sort"
)

func main() {
	people := []struct {
		name string
		age  int
	}{{"c", 30}, {"a", 10}, {"b", 20}}
	sort.Slice(people, func(i, j int) bool { return people[i].age < people[j].age })
	if people[0].name != "a" || people[2].name != "c" {
		os.Exit(4)
	}
}
