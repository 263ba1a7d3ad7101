// An explicit panic: the runtime exits 2.
package main

func main() { panic("on purpose") }
