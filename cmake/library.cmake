# liblaysim.a / liblaysim.so and their installation (docs/api.md). Included from the top
# CMakeLists.txt after the layer libraries exist.
include(GNUInstallDirs)

# External libraries every layer together needs, for static links and laysim.pc.
# libz3 is not among them: solver/z3.c opens it with dlopen when the z3 solver runs.
set(LAYSIM_PC_REQUIRES_PRIVATE "jansson zlib gsl sqlite3 libprotobuf-c cbc")
set(LAYSIM_PC_LIBS_PRIVATE "-ldl -lCbcSolver -lCbc -lCgl -lOsiClp -lClp -lOsi -lCoinUtils -lgsl -lgslcblas -lsqlite3 -ljansson -lprotobuf-c -lz -lm -lpthread")
if(LIBDEFLATE_FOUND)
  string(APPEND LAYSIM_PC_REQUIRES_PRIVATE " libdeflate")
  string(APPEND LAYSIM_PC_LIBS_PRIVATE " -ldeflate")
endif()

set(layer_objects)
set(layer_targets)
foreach(layer IN LISTS LAYSIM_PRESENT_LAYERS)
  list(APPEND layer_objects $<TARGET_OBJECTS:laysim_${layer}>)
  list(APPEND layer_targets laysim_${layer})
endforeach()

# liblaysim.a holds one prelinked object (ld -r of every layer's objects) whose symbols
# are local except the public laysim_* API, so that a user program defining a name laysim
# uses inside (model_load, graph_free...) still links; file basenames are unique across the
# tree besides (scripts/check_layers.sh), so no archive member shadows another.
set(laysim_prelinked ${CMAKE_BINARY_DIR}/laysim_prelinked.o)
add_custom_command(OUTPUT ${laysim_prelinked}
  COMMAND ${CMAKE_LINKER} -r -o ${laysim_prelinked}.all ${layer_objects}
  COMMAND ${CMAKE_OBJCOPY} --wildcard --keep-global-symbol=laysim_* ${laysim_prelinked}.all
          ${laysim_prelinked}
  COMMAND ${CMAKE_COMMAND} -E remove ${laysim_prelinked}.all
  DEPENDS ${layer_objects} ${layer_targets}
  COMMAND_EXPAND_LISTS
  COMMENT "Prelinking liblaysim.a (public laysim_* symbols only)")
add_library(laysim_static STATIC ${laysim_prelinked})
set_source_files_properties(${laysim_prelinked} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
set_target_properties(laysim_static PROPERTIES OUTPUT_NAME laysim LINKER_LANGUAGE C)

# The version script keeps the dynamic symbol table to the public prefix even for symbols
# the compiler or a sanitizer runtime would otherwise export.
add_library(laysim_shared SHARED ${layer_objects})
set_target_properties(laysim_shared PROPERTIES
  OUTPUT_NAME laysim
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
  LINK_DEPENDS ${CMAKE_SOURCE_DIR}/cmake/laysim.map)
target_link_options(laysim_shared PRIVATE -Wl,--version-script=${CMAKE_SOURCE_DIR}/cmake/laysim.map
                    -Wl,--no-undefined)
foreach(layer IN LISTS LAYSIM_PRESENT_LAYERS)
  get_target_property(ext laysim_${layer} INTERFACE_LINK_LIBRARIES)
  foreach(lib IN LISTS ext)
    if(NOT lib MATCHES "^laysim_")
      target_link_libraries(laysim_shared PRIVATE ${lib})
    endif()
  endforeach()
endforeach()
target_link_libraries(laysim_shared PRIVATE pthread)

configure_file(${CMAKE_SOURCE_DIR}/cmake/laysim.pc.in ${CMAKE_BINARY_DIR}/laysim.pc @ONLY)
configure_file(${CMAKE_SOURCE_DIR}/cmake/laysimConfig.cmake.in
               ${CMAKE_BINARY_DIR}/laysimConfig.cmake @ONLY)
include(CMakePackageConfigHelpers)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/laysimConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)

install(TARGETS laysim_static laysim_shared
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/laysim DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${CMAKE_BINARY_DIR}/laysim.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
install(FILES ${CMAKE_BINARY_DIR}/laysimConfig.cmake ${CMAKE_BINARY_DIR}/laysimConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/laysim)
# The Python package sits beside the library and finds it there (python/laysim/_lib.py).
install(DIRECTORY ${CMAKE_SOURCE_DIR}/python/laysim
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/python3/site-packages
        PATTERN __pycache__ EXCLUDE)
