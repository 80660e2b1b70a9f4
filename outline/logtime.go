package outline

// parseTime finds a timestamp near the start of a log line and returns it
// in seconds (a civil time taken as UTC; a syslog time without a year is in
// year 0, a bare clock time on day 0). Formats: 2006-01-02T15:04:05 (also
// with a space or 2006/01/02, as RFC 3339, Go's log and most loggers write
// it), anywhere in the first 48 bytes (after "[", a level or "time":"), and
// syslog's "Jan  2 15:04:05" or a bare "15:04:05" at the start.
func parseTime(line []byte) (int64, bool) {
	if len(line) >= 15 {
		if t, ok := syslogTime(line); ok {
			return t, true
		}
	}
	end := min(len(line)-19, 48)
	for i := 0; i <= end; i++ {
		if c := line[i]; c != '1' && c != '2' {
			continue
		}
		if t, ok := isoTime(line[i:]); ok {
			return t, true
		}
	}
	if len(line) >= 8 {
		if s, ok := clock(line); ok {
			return s, true
		}
	}
	return 0, false
}

// isoTime parses "2006-01-02T15:04:05" (or with ' ', or '/') at b's start.
func isoTime(b []byte) (int64, bool) {
	if len(b) < 19 || (b[4] != '-' && b[4] != '/') || b[7] != b[4] || (b[10] != 'T' && b[10] != ' ' && b[10] != '_') {
		return 0, false
	}
	y, ok1 := num(b[0:4])
	mo, ok2 := num(b[5:7])
	d, ok3 := num(b[8:10])
	if !ok1 || !ok2 || !ok3 || mo < 1 || mo > 12 || d < 1 || d > 31 {
		return 0, false
	}
	s, ok := clock(b[11:])
	if !ok {
		return 0, false
	}
	return days(y, mo, d)*86400 + s, true
}

// clock parses "15:04:05" at b's start into seconds of the day.
func clock(b []byte) (int64, bool) {
	if len(b) < 8 || b[2] != ':' || b[5] != ':' {
		return 0, false
	}
	h, ok1 := num(b[0:2])
	m, ok2 := num(b[3:5])
	s, ok3 := num(b[6:8])
	if !ok1 || !ok2 || !ok3 || h > 23 || m > 59 || s > 60 {
		return 0, false
	}
	return h*3600 + m*60 + s, true
}

var months = [12]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// syslogTime parses "Jan  2 15:04:05" at b's start.
func syslogTime(b []byte) (int64, bool) {
	if b[3] != ' ' || b[6] != ' ' {
		return 0, false
	}
	var mo int64
	for i, m := range months {
		if string(b[:3]) == m {
			mo = int64(i + 1)
			break
		}
	}
	if mo == 0 {
		return 0, false
	}
	dd := b[4:6]
	if dd[0] == ' ' {
		dd = dd[1:]
	}
	d, ok := num(dd)
	if !ok || d < 1 || d > 31 {
		return 0, false
	}
	s, ok := clock(b[7:])
	if !ok {
		return 0, false
	}
	return days(0, mo, d)*86400 + s, true
}

func num(b []byte) (int64, bool) {
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, len(b) > 0
}

// days is the number of days from 1970-01-01 to y-m-d (Howard Hinnant's
// days_from_civil).
func days(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y
	if era < 0 {
		era -= 399
	}
	era /= 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// civil is days' inverse: the date of day z.
func civil(z int64) (y, m, d int64) {
	z += 719468
	era := z
	if era < 0 {
		era -= 146096
	}
	era /= 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	y = yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = doy - (153*mp+2)/5 + 1
	m = mp + 3
	if m > 12 {
		m -= 12
	}
	if m <= 2 {
		y++
	}
	return y, m, d
}
