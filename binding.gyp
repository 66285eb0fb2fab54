{
  "variables": {
    "ssr_native_werror%": "<!(node -p \"process.env.SSR_NATIVE_WERROR === '1' ? 1 : 0\")"
  },
  "targets": [
    {
      "target_name": "ssr_native",
      "sources": [
        "<!@(node scripts/sources.js addon)",
        "<!@(node scripts/sources.js core)"
      ],
      "include_dirs": [
        "include",
        "<!(node -p \"require('node-addon-api').include_dir\")"
      ],
      "defines": [
        "NAPI_VERSION=4",
        "NODE_ADDON_API_DISABLE_DEPRECATED",
        "NAPI_CPP_EXCEPTIONS",
        "NODE_ADDON_API_CPP_EXCEPTIONS_ALL",
        "NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS"
      ],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-std=gnu++17", "-std=gnu++20"],
      "cflags": ["-O3", "-fvisibility=hidden", "-Wall", "-Wextra"],
      "cflags_cc": ["-std=c++17", "-fexceptions", "-fvisibility=hidden", "-Wall", "-Wextra"],
      "ldflags": ["-pthread"],
      "conditions": [
        ["OS=='linux'", { "libraries": ["-ldl"] }],
        [
          "ssr_native_werror==1",
          {
            "cflags": ["-Werror"],
            "cflags_cc": ["-Werror"],
            "xcode_settings": { "GCC_TREAT_WARNINGS_AS_ERRORS": "YES" }
          }
        ]
      ],
      "xcode_settings": {
        "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
        "CLANG_CXX_LANGUAGE_STANDARD": "c++17",
        "GCC_SYMBOLS_PRIVATE_EXTERN": "YES",
        "OTHER_CFLAGS": ["-O3"]
      },
      "msvs_settings": {
        "VCCLCompilerTool": { "ExceptionHandling": 1, "AdditionalOptions": ["/std:c++17"] }
      }
    }
  ]
}
