package a

// needle one
func A() {}

var x = "needle two"
var y = "NEEDLE three"
