/* sesl_pool.rom.h - default ROM of templates/hls/sesl_pool.c: the constants an instance without
 * its own ROM header compiles and runs with (the compiler writes one
 * header per instance, engines/<name>.rom.h, with the layer's data). */
#define O2H_ROM_MULT {1522057349, 2019980824, 1422285266, 1309811068, 1804001482, 1186647086, 1293600336, 1074242788, 1398580799}
#define O2H_ROM_SHIFT {31, 32, 32, 33, 33, 33, 33, 34, 34}
