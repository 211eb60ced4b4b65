package text

// MaxConditionMessageBytes is metav1.Condition's maxLength for a message. A condition
// whose message quotes an error from outside (a member's API server, a refused setting
// with every problem listed) is cut to it where the text enters the condition, so the
// API server never refuses the status write that carries it.
const MaxConditionMessageBytes = 32768

// ConditionMessage is s as a condition's message: valid UTF-8, within
// MaxConditionMessageBytes.
func ConditionMessage(s string) string { return Cap(s, MaxConditionMessageBytes) }
