//go:build adversarial_long

package adversarial

const longTag = true
