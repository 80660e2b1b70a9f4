package sub

func B() { needle() }
