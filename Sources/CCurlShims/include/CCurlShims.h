#ifndef VMHOST_CCURLSHIMS_H
#define VMHOST_CCURLSHIMS_H

#include <sys/types.h>
#include <sys/time.h>
#include <sys/select.h>
#include <sys/socket.h>

#include <curl/curl.h>

/// Typed wrappers for libcurl's variadic calls, which Swift cannot call directly.
/// One function per argument type; every symbol is prefixed `vmh_`.

CURLcode vmh_curl_easy_setopt_long(CURL *easy, CURLoption option, long value);
CURLcode vmh_curl_easy_setopt_string(CURL *easy, CURLoption option, const char *value);
CURLcode vmh_curl_easy_setopt_pointer(CURL *easy, CURLoption option, void *value);
CURLcode vmh_curl_easy_setopt_off(CURL *easy, CURLoption option, curl_off_t value);
CURLcode vmh_curl_easy_setopt_slist(CURL *easy, CURLoption option, struct curl_slist *value);
CURLcode vmh_curl_easy_setopt_write_function(CURL *easy,
                                             size_t (*function)(char *, size_t, size_t, void *));
CURLcode vmh_curl_easy_setopt_header_function(CURL *easy,
                                              size_t (*function)(char *, size_t, size_t, void *));

CURLcode vmh_curl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value);
CURLcode vmh_curl_easy_getinfo_pointer(CURL *easy, CURLINFO info, void **value);

CURLMcode vmh_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value);
CURLMcode vmh_curl_multi_setopt_pointer(CURLM *multi, CURLMoption option, void *value);
CURLMcode vmh_curl_multi_setopt_socket_function(CURLM *multi,
                                                int (*function)(CURL *, curl_socket_t, int, void *, void *));
CURLMcode vmh_curl_multi_setopt_timer_function(CURLM *multi, int (*function)(CURLM *, long, void *));

/// `CURLMsg.data.result`, which Swift cannot reach through the anonymous union reliably.
CURLcode vmh_curl_msg_result(const CURLMsg *message);

/// Constants that are macros in curl.h.
extern const curl_socket_t vmh_curl_socket_timeout;
extern const int vmh_curl_poll_in;
extern const int vmh_curl_poll_out;
extern const int vmh_curl_poll_remove;
extern const int vmh_curl_cselect_in;
extern const int vmh_curl_cselect_out;

#endif
