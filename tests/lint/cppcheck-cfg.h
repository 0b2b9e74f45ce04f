/*
 * Definitions cppcheck needs to read the sources without the system
 * headers (it is run without them to stay fast): the library macros
 * that look like statements.
 */
#define cJSON_ArrayForEach(e, a) for ((e) = (a) ? (a)->child : 0; (e); (e) = (e)->next)
