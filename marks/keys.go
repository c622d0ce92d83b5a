package marks

import "strings"

// enterSpellings are the names a client may give the Enter key: the
// UI Events key value, the character it types, the Mac name and the
// keypad's key code.
var enterSpellings = map[string]bool{"Enter": true, "\r": true, "\n": true, "Return": true, "NumpadEnter": true}

// CanonicalKey is key as [Check] and the browser's input both know it:
// every spelling of Enter a client may send ("Enter", "\r", "\n", "Return",
// "NumpadEnter") is "Enter", with the modifiers before it kept
// ("Shift+Return" is "Shift+Enter"); any other key is returned as it is.
// The gate judges and presses the same key.
func CanonicalKey(key string) string {
	mods, name := "", key
	if i := strings.LastIndex(key[:max(len(key)-1, 0)], "+"); i > 0 {
		mods, name = key[:i+1], key[i+1:]
	}
	if enterSpellings[name] {
		return mods + "Enter"
	}
	return key
}
