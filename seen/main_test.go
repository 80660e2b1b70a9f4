package seen

import (
	"testing"

	"github.com/toold/toold/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }
