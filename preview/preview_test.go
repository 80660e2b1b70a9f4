package preview

import (
	"testing"

	"github.com/toold/toold/internal/testenv"
	"github.com/toold/toold/protocol"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestRareBytes: a preview's share of the rare highlights is the contract's.
func TestRareBytes(t *testing.T) {
	if RareBytes != protocol.RareBytes {
		t.Errorf("preview.RareBytes %d, protocol.RareBytes %d", RareBytes, protocol.RareBytes)
	}
}
