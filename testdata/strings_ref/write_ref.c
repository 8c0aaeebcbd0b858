#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <netcdf.h>
#define CK(x) do{int _s=(x); if(_s){printf("ERR %s -> %d %s\n",#x,_s,nc_strerror(_s));}}while(0)
static void show(const char*tag,char**r,int n){printf("%s:",tag);for(int i=0;i<n;i++){if(r[i])printf(" \"%s\"",r[i]);else printf(" NULL");}printf("\n");}
int main(int argc,char**argv){
  char url[512]; int ncid,d,v,f,w; char *r[6];
  const char* dir=argv[1];
  snprintf(url,sizeof url,"file://%s/s.zarr#mode=nczarr,file",dir);
  CK(nc_create(url,NC_CLOBBER,&ncid));
  CK(nc_def_dim(ncid,"n",6,&d));
  CK(nc_def_var(ncid,"v",NC_STRING,1,&d,&v));
  size_t ch=2; CK(nc_def_var_chunking(ncid,v,NC_CHUNKED,&ch));
  CK(nc_def_var(ncid,"f",NC_STRING,1,&d,&f));
  CK(nc_def_var_chunking(ncid,f,NC_CHUNKED,&ch));
  const char* fill[1]={"_"}; CK(nc_def_var_fill(ncid,f,NC_FILL,fill));
  CK(nc_def_var(ncid,"w",NC_STRING,1,&d,&w));
  CK(nc_enddef(ncid));
  size_t st=0,ct=1; const char* a[1]={"a"};
  CK(nc_put_vara_string(ncid,v,&st,&ct,a));
  CK(nc_put_vara_string(ncid,f,&st,&ct,a));
  memset(r,0,sizeof r); CK(nc_get_var_string(ncid,v,r)); show("v before close",r,6);
  memset(r,0,sizeof r); CK(nc_get_var_string(ncid,f,r)); show("f before close",r,6);
  memset(r,0,sizeof r); CK(nc_get_var_string(ncid,w,r)); show("w before close",r,6);
  CK(nc_close(ncid));
  CK(nc_open(url,0,&ncid));
  memset(r,0,sizeof r); CK(nc_get_var_string(ncid,v,r)); show("v after",r,6);
  memset(r,0,sizeof r); CK(nc_get_var_string(ncid,f,r)); show("f after",r,6);
  memset(r,0,sizeof r); CK(nc_get_var_string(ncid,w,r)); show("w after",r,6);
  CK(nc_close(ncid));
  return 0;
}
