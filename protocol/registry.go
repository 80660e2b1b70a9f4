package protocol

// Params maps each method that takes params to a zero value of its params
// type: what decoding knows, what `toold schema` describes.
var Params = map[string]any{
	MethodInitialize:   InitializeParams{},
	MethodRead:         ReadParams{},
	MethodReadBytes:    ReadBytesParams{},
	MethodPage:         PageParams{},
	MethodExec:         ExecParams{},
	MethodProcessRead:  ProcessReadParams{},
	MethodProcessWait:  ProcessWaitParams{},
	MethodProcessWrite: ProcessWriteParams{},
	MethodProcessKill:  ProcessKillParams{},
	MethodGrep:         GrepParams{},
	MethodFind:         FindParams{},
	MethodLs:           LsParams{},
	MethodStats:        StatsParams{},
}

// Results maps each method that answers with a result to a zero value of
// its result type.
var Results = map[string]any{
	MethodInitialize:   InitializeResult{},
	MethodRead:         Window{},
	MethodReadBytes:    Window{},
	MethodPage:         Window{},
	MethodExec:         ExecResult{},
	MethodStats:        Stats{},
	MethodProcessRead:  ProcessOutput{},
	MethodProcessWait:  ProcessOutput{},
	MethodProcessWrite: ProcessWriteResult{},
	MethodProcessKill:  ProcessInfo{},
	MethodProcessList:  []ProcessInfo{},
	MethodGrep:         GrepResult{},
	MethodFind:         EntriesResult{},
	MethodLs:           EntriesResult{},
}

// Noticed is a result with a notice for a model.
type Noticed interface {
	// AddNotice puts s ahead of the result's notice, on the same line.
	AddNotice(s string)
}

// AddNotice implements Noticed.
func (r *InitializeResult) AddNotice(s string) { r.Notice = prepend(s, r.Notice) }

// AddNotice implements Noticed.
func (w *Window) AddNotice(s string) { w.Notice = prepend(s, w.Notice) }

// AddNotice implements Noticed.
func (w *UnchangedWindow) AddNotice(s string) { w.Notice = prepend(s, w.Notice) }

// AddNotice implements Noticed.
func (r *ExecResult) AddNotice(s string) { r.Notice = prepend(s, r.Notice) }

// AddNotice implements Noticed.
func (r *ProcessOutput) AddNotice(s string) { r.Notice = prepend(s, r.Notice) }

// AddNotice implements Noticed.
func (r *ProcessWriteResult) AddNotice(s string) { r.Notice = prepend(s, r.Notice) }

// AddNotice implements Noticed.
func (r *GrepResult) AddNotice(s string) { r.Notice = prepend(s, r.Notice) }

// AddNotice implements Noticed.
func (r *EntriesResult) AddNotice(s string) { r.Notice = prepend(s, r.Notice) }

func prepend(s string, n *string) *string {
	if n != nil && *n != "" {
		s += " " + *n
	}
	return &s
}
