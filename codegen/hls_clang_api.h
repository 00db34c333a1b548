/* hls_clang_api.h - the libclang functions the HLS specializer and lint
 * use, loaded with dlopen on first use instead of linked.
 *
 * Why: libclang pulls in libLLVM, whose loading and static constructors
 * cost about 0.1 s of CPU (0.3 s wall on a busy machine) at every process
 * start. Linked into onnx2hls, every `inspect` or `plan` would pay it;
 * loaded on demand, only `lint` and the HLS specializer do, and a machine
 * without libclang can still run the other commands.
 *
 * Include this (through hls_clang.h) instead of <clang-c/Index.h>: each
 * clang_* name below becomes a call through hc_api, filled by hc_load().
 * A function used by the code but missing here fails to link (libclang is
 * not linked), so the list stays complete. */
#ifndef ONNX2HLS_CG_HLS_CLANG_API_H
#define ONNX2HLS_CG_HLS_CLANG_API_H

#include <clang-c/Index.h>

#define HC_FUNCS(X) \
    X(clang_Cursor_Evaluate) \
    X(clang_Cursor_getArgument) \
    X(clang_Cursor_getNumArguments) \
    X(clang_Cursor_getStorageClass) \
    X(clang_Cursor_isMacroFunctionLike) \
    X(clang_Cursor_isNull) \
    X(clang_EvalResult_dispose) \
    X(clang_EvalResult_getAsLongLong) \
    X(clang_EvalResult_getKind) \
    X(clang_File_isEqual) \
    X(clang_Location_isInSystemHeader) \
    X(clang_Type_visitFields) \
    X(clang_annotateTokens) \
    X(clang_createIndex) \
    X(clang_disposeDiagnostic) \
    X(clang_disposeIndex) \
    X(clang_disposeSourceRangeList) \
    X(clang_disposeString) \
    X(clang_disposeTokens) \
    X(clang_disposeTranslationUnit) \
    X(clang_equalCursors) \
    X(clang_formatDiagnostic) \
    X(clang_getArgType) \
    X(clang_getArrayElementType) \
    X(clang_getArraySize) \
    X(clang_getCString) \
    X(clang_getCanonicalType) \
    X(clang_getCursorDefinition) \
    X(clang_getCursorExtent) \
    X(clang_getCursorKind) \
    X(clang_getCursorKindSpelling) \
    X(clang_getCursorLinkage) \
    X(clang_getCursorLocation) \
    X(clang_getCursorReferenced) \
    X(clang_getCursorResultType) \
    X(clang_getCursorSpelling) \
    X(clang_getCursorType) \
    X(clang_getCursorUSR) \
    X(clang_getDiagnostic) \
    X(clang_getDiagnosticSeverity) \
    X(clang_getEnumConstantDeclValue) \
    X(clang_getFile) \
    X(clang_getFileContents) \
    X(clang_getFileName) \
    X(clang_getLocationForOffset) \
    X(clang_getNullCursor) \
    X(clang_getNumDiagnostics) \
    X(clang_getPointeeType) \
    X(clang_getRange) \
    X(clang_getRangeEnd) \
    X(clang_getRangeStart) \
    X(clang_getSkippedRanges) \
    X(clang_getSpellingLocation) \
    X(clang_getTokenExtent) \
    X(clang_getTokenKind) \
    X(clang_getTokenLocation) \
    X(clang_getTranslationUnitCursor) \
    X(clang_getTypeSpelling) \
    X(clang_getTypedefDeclUnderlyingType) \
    X(clang_isConstQualifiedType) \
    X(clang_isCursorDefinition) \
    X(clang_parseTranslationUnit2) \
    X(clang_tokenize) \
    X(clang_visitChildren)

typedef struct {
#define HC_MEMBER(f) __typeof__(f) *f;
    HC_FUNCS(HC_MEMBER)
#undef HC_MEMBER
} HcApi;

extern HcApi hc_api;

/* Load libclang (once); 0 ok, -1 with a malloc'd reason in *why. */
int hc_load(char **why);

#ifndef HC_NO_REDIRECT
#define clang_Cursor_Evaluate (*hc_api.clang_Cursor_Evaluate)
#define clang_Cursor_getArgument (*hc_api.clang_Cursor_getArgument)
#define clang_Cursor_getNumArguments (*hc_api.clang_Cursor_getNumArguments)
#define clang_Cursor_getStorageClass (*hc_api.clang_Cursor_getStorageClass)
#define clang_Cursor_isMacroFunctionLike (*hc_api.clang_Cursor_isMacroFunctionLike)
#define clang_Cursor_isNull (*hc_api.clang_Cursor_isNull)
#define clang_EvalResult_dispose (*hc_api.clang_EvalResult_dispose)
#define clang_EvalResult_getAsLongLong (*hc_api.clang_EvalResult_getAsLongLong)
#define clang_EvalResult_getKind (*hc_api.clang_EvalResult_getKind)
#define clang_File_isEqual (*hc_api.clang_File_isEqual)
#define clang_Location_isInSystemHeader (*hc_api.clang_Location_isInSystemHeader)
#define clang_Type_visitFields (*hc_api.clang_Type_visitFields)
#define clang_annotateTokens (*hc_api.clang_annotateTokens)
#define clang_createIndex (*hc_api.clang_createIndex)
#define clang_disposeDiagnostic (*hc_api.clang_disposeDiagnostic)
#define clang_disposeIndex (*hc_api.clang_disposeIndex)
#define clang_disposeSourceRangeList (*hc_api.clang_disposeSourceRangeList)
#define clang_disposeString (*hc_api.clang_disposeString)
#define clang_disposeTokens (*hc_api.clang_disposeTokens)
#define clang_disposeTranslationUnit (*hc_api.clang_disposeTranslationUnit)
#define clang_equalCursors (*hc_api.clang_equalCursors)
#define clang_formatDiagnostic (*hc_api.clang_formatDiagnostic)
#define clang_getArgType (*hc_api.clang_getArgType)
#define clang_getArrayElementType (*hc_api.clang_getArrayElementType)
#define clang_getArraySize (*hc_api.clang_getArraySize)
#define clang_getCString (*hc_api.clang_getCString)
#define clang_getCanonicalType (*hc_api.clang_getCanonicalType)
#define clang_getCursorDefinition (*hc_api.clang_getCursorDefinition)
#define clang_getCursorExtent (*hc_api.clang_getCursorExtent)
#define clang_getCursorKind (*hc_api.clang_getCursorKind)
#define clang_getCursorKindSpelling (*hc_api.clang_getCursorKindSpelling)
#define clang_getCursorLinkage (*hc_api.clang_getCursorLinkage)
#define clang_getCursorLocation (*hc_api.clang_getCursorLocation)
#define clang_getCursorReferenced (*hc_api.clang_getCursorReferenced)
#define clang_getCursorResultType (*hc_api.clang_getCursorResultType)
#define clang_getCursorSpelling (*hc_api.clang_getCursorSpelling)
#define clang_getCursorType (*hc_api.clang_getCursorType)
#define clang_getCursorUSR (*hc_api.clang_getCursorUSR)
#define clang_getDiagnostic (*hc_api.clang_getDiagnostic)
#define clang_getDiagnosticSeverity (*hc_api.clang_getDiagnosticSeverity)
#define clang_getEnumConstantDeclValue (*hc_api.clang_getEnumConstantDeclValue)
#define clang_getFile (*hc_api.clang_getFile)
#define clang_getFileContents (*hc_api.clang_getFileContents)
#define clang_getFileName (*hc_api.clang_getFileName)
#define clang_getLocationForOffset (*hc_api.clang_getLocationForOffset)
#define clang_getNullCursor (*hc_api.clang_getNullCursor)
#define clang_getNumDiagnostics (*hc_api.clang_getNumDiagnostics)
#define clang_getPointeeType (*hc_api.clang_getPointeeType)
#define clang_getRange (*hc_api.clang_getRange)
#define clang_getRangeEnd (*hc_api.clang_getRangeEnd)
#define clang_getRangeStart (*hc_api.clang_getRangeStart)
#define clang_getSkippedRanges (*hc_api.clang_getSkippedRanges)
#define clang_getSpellingLocation (*hc_api.clang_getSpellingLocation)
#define clang_getTokenExtent (*hc_api.clang_getTokenExtent)
#define clang_getTokenKind (*hc_api.clang_getTokenKind)
#define clang_getTokenLocation (*hc_api.clang_getTokenLocation)
#define clang_getTranslationUnitCursor (*hc_api.clang_getTranslationUnitCursor)
#define clang_getTypeSpelling (*hc_api.clang_getTypeSpelling)
#define clang_getTypedefDeclUnderlyingType (*hc_api.clang_getTypedefDeclUnderlyingType)
#define clang_isConstQualifiedType (*hc_api.clang_isConstQualifiedType)
#define clang_isCursorDefinition (*hc_api.clang_isCursorDefinition)
#define clang_parseTranslationUnit2 (*hc_api.clang_parseTranslationUnit2)
#define clang_tokenize (*hc_api.clang_tokenize)
#define clang_visitChildren (*hc_api.clang_visitChildren)
#endif

#endif
