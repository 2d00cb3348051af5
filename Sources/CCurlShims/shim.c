#include "CCurlShims.h"

_Static_assert(sizeof(long) == 8, "vmhost assumes LP64: Swift Int is C long");

CURLcode vmh_curl_easy_setopt_long(CURL *easy, CURLoption option, long value) {
    return curl_easy_setopt(easy, option, value);
}
CURLcode vmh_curl_easy_setopt_string(CURL *easy, CURLoption option, const char *value) {
    return curl_easy_setopt(easy, option, value);
}
CURLcode vmh_curl_easy_setopt_pointer(CURL *easy, CURLoption option, void *value) {
    return curl_easy_setopt(easy, option, value);
}
CURLcode vmh_curl_easy_setopt_off(CURL *easy, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(easy, option, value);
}
CURLcode vmh_curl_easy_setopt_slist(CURL *easy, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(easy, option, value);
}
CURLcode vmh_curl_easy_setopt_write_function(CURL *easy, size_t (*function)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, function);
}
CURLcode vmh_curl_easy_setopt_header_function(CURL *easy, size_t (*function)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, function);
}

CURLcode vmh_curl_easy_getinfo_long(CURL *easy, CURLINFO info, long *value) {
    return curl_easy_getinfo(easy, info, value);
}
CURLcode vmh_curl_easy_getinfo_pointer(CURL *easy, CURLINFO info, void **value) {
    return curl_easy_getinfo(easy, info, value);
}

CURLMcode vmh_curl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}
CURLMcode vmh_curl_multi_setopt_pointer(CURLM *multi, CURLMoption option, void *value) {
    return curl_multi_setopt(multi, option, value);
}
CURLMcode vmh_curl_multi_setopt_socket_function(CURLM *multi,
                                                int (*function)(CURL *, curl_socket_t, int, void *, void *)) {
    return curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, function);
}
CURLMcode vmh_curl_multi_setopt_timer_function(CURLM *multi, int (*function)(CURLM *, long, void *)) {
    return curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, function);
}

CURLcode vmh_curl_msg_result(const CURLMsg *message) {
    return message->data.result;
}

const curl_socket_t vmh_curl_socket_timeout = CURL_SOCKET_TIMEOUT;
const int vmh_curl_poll_in = CURL_POLL_IN;
const int vmh_curl_poll_out = CURL_POLL_OUT;
const int vmh_curl_poll_remove = CURL_POLL_REMOVE;
const int vmh_curl_cselect_in = CURL_CSELECT_IN;
const int vmh_curl_cselect_out = CURL_CSELECT_OUT;
