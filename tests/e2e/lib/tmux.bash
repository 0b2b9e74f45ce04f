# rntop's screen tests: a shell in a tmux pane of a given size, on a
# server of the test's own (-L "$TSOCK", set by the test's setup, with
# TMUX_PID= and TMUX unset), stopped by tmux_stop in teardown. Load
# after lib/common.
#
#   tmux_pane COLS ROWS      starts the shell; TMUX_PID: the server's PID
#   tmux_run COLS ROWS CMD   the same, then types CMD and "echo EXIT=$?"
#   keys KEY...              tmux send-keys to the pane
#   screen [ARGS]            the pane's text (capture-pane -p ARGS)
#   wait_screen REGEX        waits (10 s times TIME_SCALE) until shown
#   tmux_stop                ends the server, by its PID too

tmux_pane() {
	tmux -L "$TSOCK" -f /dev/null new-session -d -x "$1" -y "$2" \
		"env PS1='$ ' HOME='$HOME' bash --norc --noprofile" 3>&-
	TMUX_PID=$(tmux -L "$TSOCK" display-message -p '#{pid}')
}

tmux_run() {
	tmux_pane "$1" "$2"
	keys "$3; echo EXIT=\$?" Enter
}

keys() {
	tmux -L "$TSOCK" send-keys "$@"
}

# shellcheck disable=SC2120 # the tests pass capture-pane options (-e)
screen() {
	tmux -L "$TSOCK" capture-pane -p "$@"
}

# shellcheck disable=SC2119 # the whole pane, no capture-pane options
wait_screen() {
	local _
	for _ in $(seq 1 $((200 * TIME_SCALE))); do
		screen | grep -Eq -- "$1" && return 0
		sleep 0.05
	done
	echo "the screen never showed '$1':" >&2
	screen >&2
	return 1
}

tmux_stop() {
	if [ -n "${TMUX_PID:-}" ]; then
		tmux -L "$TSOCK" kill-server 2>/dev/null || true
		kill "$TMUX_PID" 2>/dev/null || true
	fi
}
