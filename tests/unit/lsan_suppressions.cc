// LeakSanitizer's suppressions for the unit tests, built into the binary so
// that every sanitizer run uses them (LSan calls this when it is linked in;
// otherwise nothing does).
//
// One: the libpq result of a COMMIT whose connection was lost on the way,
// which libpqxx 6.4 (pqxx::internal::basic_transaction::do_commit, then
// in_doubt_error) leaves unfreed. The postgres suite loses three COMMITs on
// purpose (pg_storage_test.cc, CommitCutter): 216 bytes and a 2 KiB block
// each, 6.8 KB in all. It is not hpo's: hpo never holds a libpq result
// (libpqxx owns each one), and PgConnection drops the whole connection after
// an in-doubt COMMIT. The template names libpq's allocator of results
// because ASan's fast unwinder stops inside libpqxx (built without frame
// pointers): do_commit is not on the recorded stack. Other leaks, of hpo's
// objects or a connection, are still reported.
extern "C" const char* __lsan_default_suppressions() { return "leak:PQmakeEmptyPGresult\n"; }
