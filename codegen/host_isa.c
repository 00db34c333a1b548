/* host_isa.c - the x86-64 build of OUT/host that chooses its kernels at run
 * time (`make ISA=multi`, CMake -DO2H_ISA=multi).
 *
 * The runtime picks its vector paths at compile time from the target's ISA
 * macros (__AVX2__, __AVX512F__, __AVX512VNNI__ ...), so one program built
 * for one -march either leaves speed unused on newer CPUs or does not run on
 * older ones. The multi build compiles model.c and runtime/ once per level
 * of the table below, links each level's objects into one relocatable
 * isa_<tag>.o (cc -r) and has objcopy make every symbol of it local except
 * model.h's functions, which it renames isa_<tag>_model_*. The levels thus
 * live side by side in one program without a change to their sources, and
 * each computes exactly what a single build with the same flags computes.
 * isa_dispatch.c, written here and compiled for the baseline, implements
 * model.h by choosing one level once (the best one the CPU supports, or
 * O2H_ISA=<tag>) and forwarding every call to it.
 *
 * This table is the one place that names the levels: the Makefile's and
 * CMakeLists.txt's flags and isa_dispatch.c's CPU checks come from it.
 */
#include "host_emit.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

/* CPU features (__builtin_cpu_supports names GCC and clang both know) */
#define ISA_CPU_V3 "avx avx2 fma bmi bmi2 popcnt sse4.2"
#define ISA_CPU_V4 ISA_CPU_V3 " avx512f avx512bw avx512cd avx512dq avx512vl"

typedef struct {
    const char *tag;      /* O2H_ISA value, ISAS entry, isa_<tag>_ prefix */
    const char *flags;    /* compiler flags: the same as ARCH= of a single build */
    const char *cpu;      /* features the CPU must report */
    const char *cpu_gcc;  /* more of them, checked when GCC compiles the dispatcher */
    const char *what;
} CgIsaLevel;

/* Best first: the dispatcher takes the first level built that the CPU runs.
 * v1 is always built (the fallback, and the runtime main.c calls). */
static const CgIsaLevel isa_levels[] = {
    {"v4vnni", "-march=x86-64-v4 -mavx512vnni -mavx512vbmi", ISA_CPU_V4 " avx512vnni avx512vbmi",
     "f16c movbe lzcnt", "x86-64-v4 + AVX512-VNNI + AVX512-VBMI"},
    {"v4", "-march=x86-64-v4", ISA_CPU_V4, "f16c movbe lzcnt", "x86-64-v4 (AVX-512 F/BW/CD/DQ/VL)"},
    {"v3vnni", "-march=x86-64-v3 -mavxvnni", ISA_CPU_V3 " avxvnni", "f16c movbe lzcnt",
     "x86-64-v3 + AVX-VNNI"},
    {"v3", "-march=x86-64-v3", ISA_CPU_V3, "f16c movbe lzcnt", "x86-64-v3 (AVX2, FMA)"},
    {"v1", "-march=x86-64", "", "", "x86-64 baseline (SSE2)"},
};
#define ISA_N ((int)(sizeof isa_levels / sizeof isa_levels[0]))
#define ISA_DEFAULT "v3 v4 v4vnni"

/* model.h's functions each level exports (renamed) and the dispatcher
 * forwards; model_status_str is the dispatcher's own. Keep in step with
 * write_model_h (host.c): tests/scripts/test_host_isa.sh checks it. */
static const char isa_api[] =
    "model_init model_run model_set_tap model_run_layer model_tensor model_pool_floats";
static const char isa_api_file[] = "model_init model_init_file model_run model_set_tap "
                                   "model_run_layer model_tensor model_pool_floats";
/* model.h's data: the same in every level, kept global from v1's copy */
static const char isa_data[] = "model_inputs model_outputs model_num_inputs model_num_outputs model_layers";

static const char *api_list(const CgHost *h)
{
    return h->opt->embed_weights ? isa_api : isa_api_file;   /* embedded: no model_init_file */
}

/* --------------------------------------------------------- Makefile */

static void make_levels(FILE *f)
{
    fputs("ISAS ?= " ISA_DEFAULT "\nOBJCOPY ?= objcopy\nISA_KNOWN :=", f);
    for (int i = ISA_N - 1; i >= 0; i--)
        fprintf(f, " %s", isa_levels[i].tag);
    fputs("\n", f);
    for (int i = 0; i < ISA_N; i++)
        fprintf(f, "ISA_FLAGS_%s := %s\n", isa_levels[i].tag, isa_levels[i].flags);
    fputs("ISA_LEVELS := v1 $(filter-out v1,$(ISAS))\n", f);
}

static const char make_checks[] =
    "ifneq ($(filter-out $(ISA_KNOWN),$(ISA_LEVELS)),)\n"
    "$(error ISAS: unknown level(s) '$(filter-out $(ISA_KNOWN),$(ISA_LEVELS))' (levels: $(ISA_KNOWN)))\n"
    "endif\n"
    "ISA_MACHINE := $(shell $(CC) -dumpmachine 2> /dev/null)\n"
    "ifeq ($(filter x86_64-%,$(ISA_MACHINE)),)\n"
    "$(error ISA=multi builds x86-64 programs, but $(CC) targets '$(ISA_MACHINE)': "
    "build one target with ARCH= instead)\n"
    "endif\n"
    "ifeq ($(shell command -v $(firstword $(OBJCOPY)) 2> /dev/null),)\n"
    "$(error ISA=multi needs objcopy to hide each level's symbols: '$(OBJCOPY)' not found "
    "(install binutils, or pass OBJCOPY=llvm-objcopy))\n"
    "endif\n"
    "ifneq ($(filter -march=% -mavx% -mfma% -msse%,$(CFLAGS)),)\n"
    "$(error ISA=multi sets each level's -march: take '$(filter -march=% -mavx% -mfma% -msse%,$(CFLAGS))' "
    "out of CFLAGS)\n"
    "endif\n"
    "ifeq ($(RUNTIME),installed)\n"
    "$(error ISA=multi compiles runtime/ once per level: the installed runtime library is "
    "built for one target (drop RUNTIME=installed))\n"
    "endif\n";

/* one level: its objects, then isa_<tag>.o with all but the renamed API local */
static const char make_rules[] =
    "define ISA_RULES\n"
    "$(BUILD)/$(1)/%.o: %.c $$(HDR)\n"
    "\t@mkdir -p $$(dir $$@)\n"
    "\t$$(CC) $$(CPPFLAGS) $$(CFLAGS) $$(ISA_FLAGS_$(1)) -I. -Iruntime -c -o $$@ $$<\n\n"
    "$(BUILD)/isa_$(1).o: $$(ISA_SRC:%.c=$(BUILD)/$(1)/%.o)\n"
    "\t$$(CC) -r -nostdlib -o $$@.r $$^\n"
    "\t$$(OBJCOPY) $$(foreach s,$$(ISA_API),--redefine-sym $$(s)=isa_$(1)_$$(s) "
    "--keep-global-symbol=isa_$(1)_$$(s)) \\\n"
    "\t    $$(if $$(filter v1,$(1)),$$(ISA_DATA:%=--keep-global-symbol=%)) $$@.r $$@\n"
    "\t@rm -f $$@.r\n"
    "endef\n"
    "$(foreach v,$(ISA_LEVELS),$(eval $(call ISA_RULES,$(v))))\n\n"
    "# the baseline's runtime objects as a library: the o2h_* functions main.c calls\n"
    "$(BUILD)/libo2h_rt_v1.a: $(RT_COPY:%.c=$(BUILD)/v1/%.o)\n"
    "\t@rm -f $@\n\t$(AR) rcs $@ $^\n\n"
    "# the dispatcher knows the levels built; a change of ISAS rebuilds it\n"
    "ISA_STAMP := $(shell mkdir -p $(BUILD) && echo '$(ISA_LEVELS)' > $(BUILD)/isa_levels.new && "
    "{ cmp -s $(BUILD)/isa_levels.new $(BUILD)/isa_levels || "
    "mv $(BUILD)/isa_levels.new $(BUILD)/isa_levels; }; rm -f $(BUILD)/isa_levels.new)\n"
    "$(BUILD)/isa_dispatch.o: $(BUILD)/isa_levels\n"
    "$(BUILD)/isa_dispatch.o: BASE_FLAGS += $(ISA_LEVELS:%=-DO2H_ISA_HAVE_%)\n";

void cg_host_isa_make(const CgHost *h, FILE *f)
{
    fputs("# ---- ISA=multi: one x86-64 program for every x86-64 CPU. model.c and runtime/\n"
          "# are compiled once per level (v1 = the x86-64 baseline, always, and ISAS); each\n"
          "# level's objects become one isa_<level>.o (cc -r) in which objcopy leaves only\n"
          "# model.h's functions global, renamed isa_<level>_model_*. isa_dispatch.c (baseline\n"
          "# code) picks the best level the CPU supports once, or O2H_ISA=<level>, and\n"
          "# forwards model.h's calls to it. Levels (the flags of the matching single build):\n", f);
    for (int i = ISA_N - 1; i >= 0; i--)
        fprintf(f, "#   %-7s %-45s %s\n", isa_levels[i].tag, isa_levels[i].flags, isa_levels[i].what);
    make_levels(f);
    fputs("override ARCH :=\n", f);   /* before the checks: CFLAGS holds $(ARCH) */
    fputs(make_checks, f);
    fprintf(f, "BASE_FLAGS := $(ISA_FLAGS_v1)\nISA_API := %s\nISA_DATA := %s\n"
               "RT_COPY := $(wildcard runtime/*.c)\nISA_SRC := model.c $(RT_COPY)\n"
               "OBJ := $(BUILD)/main.o $(BUILD)/isa_dispatch.o%s $(ISA_LEVELS:%%=$(BUILD)/isa_%%.o) "
               "$(BUILD)/libo2h_rt_v1.a\nRT_LIBS :=\n\n",
            api_list(h), isa_data, h->opt->embed_weights ? " $(BUILD)/weights.o" : "");
    fputs(make_rules, f);
}

/* ----------------------------------------------------- CMakeLists.txt */

static void cmake_levels(FILE *f)
{
    fputs("set(O2H_ISAS \"" ISA_DEFAULT "\" CACHE STRING \"levels of O2H_ISA=multi besides v1 "
          "(the x86-64 baseline)\")\n", f);
    for (int i = 0; i < ISA_N; i++)
        fprintf(f, "  set(O2H_ISA_FLAGS_%s %s)\n", isa_levels[i].tag, isa_levels[i].flags);
}

static const char cmake_checks[] =
    "  separate_arguments(_levels UNIX_COMMAND \"v1 ${O2H_ISAS}\")\n"
    "  list(REMOVE_DUPLICATES _levels)\n"
    "  if(NOT CMAKE_SYSTEM_PROCESSOR MATCHES \"^(x86_64|AMD64|amd64)$\")\n"
    "    message(FATAL_ERROR \"O2H_ISA=multi builds x86-64 programs, not for ${CMAKE_SYSTEM_PROCESSOR}\")\n"
    "  endif()\n"
    "  find_program(O2H_OBJCOPY NAMES objcopy llvm-objcopy)\n"
    "  if(NOT O2H_OBJCOPY)\n"
    "    message(FATAL_ERROR \"O2H_ISA=multi needs objcopy (binutils) to hide each level's symbols\")\n"
    "  endif()\n";

/* per level: OBJECT libraries, the relocatable link and objcopy */
static const char cmake_rules[] =
    "  set(_isa_objs)\n"
    "  foreach(v IN LISTS _levels)\n"
    "    if(NOT DEFINED O2H_ISA_FLAGS_${v})\n"
    "      message(FATAL_ERROR \"O2H_ISAS: unknown level ${v}\")\n"
    "    endif()\n"
    "    add_library(o2h_rt_${v} OBJECT ${O2H_RT_SRC})\n"
    "    add_library(o2h_model_${v} OBJECT model.c)\n"
    "    foreach(t o2h_rt_${v} o2h_model_${v})\n"
    "      target_include_directories(${t} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR} "
    "${CMAKE_CURRENT_SOURCE_DIR}/runtime)\n"
    "      target_compile_options(${t} PRIVATE ${O2H_ISA_FLAGS_${v}})\n"
    "    endforeach()\n"
    "    set(_args)\n"
    "    foreach(s IN LISTS _api)\n"
    "      list(APPEND _args --redefine-sym ${s}=isa_${v}_${s} --keep-global-symbol=isa_${v}_${s})\n"
    "    endforeach()\n"
    "    if(v STREQUAL \"v1\")\n"
    "      foreach(s IN LISTS _data)\n"
    "        list(APPEND _args --keep-global-symbol=${s})\n"
    "      endforeach()\n"
    "    endif()\n"
    "    set(_o ${CMAKE_CURRENT_BINARY_DIR}/isa_${v}.o)\n"
    "    add_custom_command(OUTPUT ${_o}\n"
    "      COMMAND ${CMAKE_C_COMPILER} -r -nostdlib -o ${_o}.r $<TARGET_OBJECTS:o2h_model_${v}> "
    "$<TARGET_OBJECTS:o2h_rt_${v}>\n"
    "      COMMAND ${O2H_OBJCOPY} ${_args} ${_o}.r ${_o}\n"
    "      DEPENDS $<TARGET_OBJECTS:o2h_model_${v}> $<TARGET_OBJECTS:o2h_rt_${v}>\n"
    "      COMMAND_EXPAND_LISTS VERBATIM)\n"
    "    list(APPEND _isa_objs ${_o})\n"
    "  endforeach()\n"
    "  set_source_files_properties(${_isa_objs} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)\n"
    "  set(_have)\n"
    "  foreach(v IN LISTS _levels)\n"
    "    list(APPEND _have -DO2H_ISA_HAVE_${v})\n"
    "  endforeach()\n"
    "  add_library(o2h_rt STATIC $<TARGET_OBJECTS:o2h_rt_v1>)\n"
    "  add_library(model_lib STATIC isa_dispatch.c ${_isa_objs})\n"
    "  target_compile_options(model_lib PRIVATE ${O2H_ISA_FLAGS_v1} ${_have})\n";

void cg_host_isa_cmake(const CgHost *h, FILE *f)
{
    fputs("# O2H_ISA=multi: one x86-64 program for every x86-64 CPU, as `make ISA=multi`\n"
          "# (see the Makefile): model.c and runtime/ per level, isa_dispatch.c choosing.\n"
          "set(O2H_ISA \"\" CACHE STRING \"multi: x86-64 program choosing its kernels at run time\")\n", f);
    cmake_levels(f);
    fputs("if(O2H_ISA STREQUAL \"multi\")\n", f);
    fputs(cmake_checks, f);
    fprintf(f, "  separate_arguments(_api UNIX_COMMAND \"%s\")\n"
               "  separate_arguments(_data UNIX_COMMAND \"%s\")\n",
            api_list(h), isa_data);
    fputs(cmake_rules, f);
    if (h->opt->embed_weights)
        fputs("  target_sources(model_lib PRIVATE weights.c)\n", f);
}

/* ------------------------------------------------------ isa_dispatch.c */

static const char disp_head[] =
    "/* isa_dispatch.c - model.h's API for the program built with `make ISA=multi`\n"
    " * (generated by onnx2hls; unused by other builds).\n"
    " *\n"
    " * model.c and the runtime are linked in once per instruction-set level,\n"
    " * each level's symbols local but for its model.h functions, renamed\n"
    " * isa_<level>_model_*. This file, compiled for the x86-64 baseline so that it\n"
    " * runs on every x86-64 CPU, chooses one level at the first call: the first\n"
    " * one built (O2H_ISA_HAVE_<level>) that the CPU supports, best first, or the\n"
    " * one the environment variable O2H_ISA names (auto: the default choice). With\n"
    " * O2H_ISA set, the choice is reported on stderr; a level this program lacks\n"
    " * or this CPU cannot run makes every call fail with MODEL_ERR_ISA.\n"
    " */\n"
    "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n"
    "#include \"model.h\"\n#include \"runtime/o2h_rt.h\"\n\n"
    "#define MODEL_ERR_ISA 64   /* O2H_ISA names a level not built or not supported */\n\n"
    "#define CPU(f) __builtin_cpu_supports(f)\n"
    "#if defined(__clang__)\n#define CPU_GCC(f) 1   /* names clang does not know */\n"
    "#else\n#define CPU_GCC(f) __builtin_cpu_supports(f)\n#endif\n\n";

static const char disp_type[] =
    "typedef struct {\n"
    "    const char *tag, *what;\n"
    "    int (*cpu)(void);\n"
    "    int (*init)(const void *, size_t);\n"
    "%s"
    "    int (*run)(const void *const *, void *const *);\n"
    "    void (*set_tap)(ModelTap, void *);\n"
    "    int (*run_layer)(int, const void *const *);\n"
    "    void *(*tensor)(int, const void *const *);\n"
    "    size_t (*pool_floats)(void);\n"
    "} IsaLevel;\n\n";

/* "a b c" -> CPU("a") && CPU("b") && CPU("c") */
static void disp_features(FILE *f, const char *macro, const char *list, bool *first, int *count)
{
    char word[32];
    const char *p = list;
    int n;
    while (sscanf(p, "%31s%n", word, &n) == 1) {
        fprintf(f, "%s%s(\"%s\")", *first ? "" : (*count % 5 ? " && " : " &&\n           "), macro, word);
        *first = false;
        ++*count;
        p += n;
    }
}

static void disp_level(FILE *f, const CgIsaLevel *L, bool file)
{
    const char *t = L->tag;
    fprintf(f, "#ifdef O2H_ISA_HAVE_%s\n", t);
    fprintf(f, "int isa_%s_model_init(const void *, size_t);\n", t);
    if (file)
        fprintf(f, "int isa_%s_model_init_file(const char *);\n", t);
    fprintf(f, "int isa_%s_model_run(const void *const *, void *const *);\n"
               "void isa_%s_model_set_tap(ModelTap, void *);\n"
               "int isa_%s_model_run_layer(int, const void *const *);\n"
               "void *isa_%s_model_tensor(int, const void *const *);\n"
               "size_t isa_%s_model_pool_floats(void);\n\n",
            t, t, t, t, t);
    fprintf(f, "static int cpu_%s(void)\n{\n    return ", t);
    bool first = true;
    int count = 0;
    disp_features(f, "CPU", L->cpu, &first, &count);
    disp_features(f, "CPU_GCC", L->cpu_gcc, &first, &count);
    fprintf(f, "%s;\n}\n#endif\n\n", first ? "1" : "");
}

static void disp_table(FILE *f, bool file)
{
    fputs("/* best first */\nstatic const IsaLevel isa_levels[] = {\n", f);
    for (int i = 0; i < ISA_N; i++) {
        const char *t = isa_levels[i].tag;
        fprintf(f, "#ifdef O2H_ISA_HAVE_%s\n    {\"%s\", \"%s\", cpu_%s,\n     isa_%s_model_init, ", t, t,
                isa_levels[i].what, t, t);
        if (file)
            fprintf(f, "isa_%s_model_init_file, ", t);
        fprintf(f, "isa_%s_model_run, isa_%s_model_set_tap,\n     isa_%s_model_run_layer, "
                   "isa_%s_model_tensor, isa_%s_model_pool_floats},\n#endif\n",
                t, t, t, t, t);
    }
    fputs("};\n#define ISA_N ((int)(sizeof isa_levels / sizeof isa_levels[0]))\n\n", f);
}

static const char disp_pick[] =
    "static const IsaLevel *g_isa;\n"
    "static int g_isa_tried;\n\n"
    "/* O2H_ISA set: say what happened, once */\n"
    "static void isa_report(const char *want, const IsaLevel *l, int built)\n{\n"
    "    if (l)\n"
    "        fprintf(stderr, \"O2H_ISA=%s: running the %s kernels (%s)\\n\", want, l->tag, l->what);\n"
    "    else if (built)\n"
    "        fprintf(stderr, \"O2H_ISA=%s: this CPU does not support that level\\n\", want);\n"
    "    else {\n"
    "        fprintf(stderr, \"O2H_ISA=%s: not a level of this program (levels:\", want);\n"
    "        for (int i = 0; i < ISA_N; i++)\n"
    "            fprintf(stderr, \" %s\", isa_levels[i].tag);\n"
    "        fprintf(stderr, \", auto)\\n\");\n    }\n}\n\n"
    "/* The level every call goes to, chosen at the first call; NULL when O2H_ISA\n"
    " * asks for one that cannot run. */\n"
    "static const IsaLevel *isa(void)\n{\n"
    "    if (g_isa_tried)\n        return g_isa;\n"
    "    g_isa_tried = 1;\n"
    "    __builtin_cpu_init();\n"
    "    const char *want = getenv(\"O2H_ISA\");\n"
    "    int any = !want || !*want || !strcmp(want, \"auto\"), built = 0;\n"
    "    for (int i = 0; i < ISA_N && !g_isa; i++) {\n"
    "        if (!any && strcmp(want, isa_levels[i].tag))\n            continue;\n"
    "        built = 1;\n"
    "        if (isa_levels[i].cpu())\n            g_isa = &isa_levels[i];\n    }\n"
    "    if (want && *want)\n        isa_report(want, g_isa, built);\n"
    "    return g_isa;\n}\n\n";

static const char disp_api[] =
    "int model_init(const void *blob, size_t len)\n{\n"
    "    return isa() ? g_isa->init(blob, len) : MODEL_ERR_ISA;\n}\n\n"
    "%s"
    "int model_run(const void *const *inputs, void *const *outputs)\n{\n"
    "    return isa() ? g_isa->run(inputs, outputs) : MODEL_ERR_ISA;\n}\n\n"
    "void model_set_tap(ModelTap fn, void *ctx)\n{\n"
    "    if (isa())\n        g_isa->set_tap(fn, ctx);\n}\n\n"
    "int model_run_layer(int layer, const void *const *inputs)\n{\n"
    "    return isa() ? g_isa->run_layer(layer, inputs) : MODEL_ERR_ISA;\n}\n\n"
    "void *model_tensor(int tensor, const void *const *inputs)\n{\n"
    "    return isa() ? g_isa->tensor(tensor, inputs) : NULL;\n}\n\n"
    "size_t model_pool_floats(void)\n{\n"
    "    return isa() ? g_isa->pool_floats() : 0;\n}\n\n"
    "const char *model_status_str(int status)\n{\n"
    "    if (status == MODEL_ERR_ISA)\n"
    "        return \"O2H_ISA names an instruction-set level this program lacks or this CPU cannot run\";\n"
    "    return o2h_status_str((O2hStatus)status);\n}\n";

static const char disp_init_file[] =
    "int model_init_file(const char *path)\n{\n"
    "    return isa() ? g_isa->init_file(path) : MODEL_ERR_ISA;\n}\n\n";

int cg_host_write_isa(const CgHost *h, const char *dir)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/isa_dispatch.c", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    bool file = !h->opt->embed_weights;
    fputs(disp_head, f);
    fprintf(f, disp_type, file ? "    int (*init_file)(const char *);\n" : "");
    for (int i = 0; i < ISA_N; i++)
        disp_level(f, &isa_levels[i], file);
    disp_table(f, file);
    fputs(disp_pick, f);
    fprintf(f, disp_api, file ? disp_init_file : "");
    int rc = ferror(f) ? -1 : 0;
    if (fclose(f))
        rc = -1;
    return rc;
}
