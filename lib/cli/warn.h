/*
 * rai_warn: the one way a program says "warning:" (and where the
 * library's log lines go). Every line reads "PROG: warning: MESSAGE",
 * the message sanitised for the terminal, and stdout is flushed first so
 * a warning lands after the output it concerns when both share a
 * terminal or a file. rai_main sets PROG from the program's table.
 */
#ifndef RAI_WARN_H
#define RAI_WARN_H

/* The name in front of every warning (rai_main sets it). */
void	rai_warn_set_program(const char *);
void	rai_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * A rai_log sink for main(): RAI_LOG_WARN lines as rai_warn prints
 * them, every other level as the line itself, on stderr.
 */
void	rai_log_to_stderr(int level, const char *msg, void *ud);

#endif
